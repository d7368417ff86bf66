/// Names searched in memory: the built-in Swift API names, or the lines of a `--corpus` file.
///
/// Matching is case-insensitive. Names that start with the query rank before names that only
/// contain it, then shorter names first (the closest match to what was typed), then by name, so
/// the order is total and every run prints the same list.
///
/// ```swift
/// SearchCorpus.builtIn.search("task", limit: 3).items  // ["Task", "TaskGroup", "TaskLocal"]
/// ```
package struct SearchCorpus: Sendable {
  /// The names, in the order given, without duplicates.
  package let names: [String]
  /// The names lowercased once, so a query folds only itself.
  private let folded: [String]
  /// How many Unicode scalars each folded name has.
  private let scalarCounts: [Int]

  /// Keeps the first of each duplicate name; empty names are dropped.
  package init(names: some Sequence<String>) {
    var seen: Set<String> = []
    let unique = names.filter { !$0.isEmpty && seen.insert($0).inserted }
    self.names = unique
    self.folded = unique.map { $0.lowercased() }
    self.scalarCounts = folded.map(\.unicodeScalars.count)
  }

  /// No canonical decomposition makes a scalar more than this many: a query with more times
  /// the scalars of a name cannot be found in it, whatever its normalisation.
  private static let maxDecomposition = 4

  /// The names compiled into the binary.
  package static let builtIn = SearchCorpus(
    names: builtInNames.split(whereSeparator: \.isWhitespace).map(String.init))

  /// The best `limit` matches of `query`, and how many names matched in all.
  package func search(_ query: String, limit: Int) -> SearchHits {
    let needle = query.lowercased()
    let needleScalars = needle.unicodeScalars.count
    var matches: [(rank: Int, length: Int, folded: String, name: String)] = []
    for ((name, folded), scalars) in zip(zip(names, folded), scalarCounts) {
      // Comparing normalises both sides again for each name: a query of one character with
      // 50,000 combining marks took seconds per name. Such a query is longer than any name.
      guard needleScalars <= scalars * Self.maxDecomposition else { continue }
      if folded.hasPrefix(needle) {
        matches.append((0, name.count, folded, name))
      } else if folded.contains(needle) {
        matches.append((1, name.count, folded, name))
      }
    }
    matches.sort {
      ($0.rank, $0.length, $0.folded, $0.name) < ($1.rank, $1.length, $1.folded, $1.name)
    }
    return SearchHits(items: matches.prefix(max(limit, 0)).map(\.name), total: matches.count)
  }

  /// Reads a corpus file: one name per line, surrounding spaces trimmed, blank lines skipped.
  /// - Throws: `InputFile.Failure` for a file that cannot be read, is not UTF-8, or has no names.
  package static func load(_ path: String) throws(InputFile.Failure) -> SearchCorpus {
    let bytes = try InputFile.readAll(path, option: "--corpus")
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw InputFile.Failure(message: "'\(path)' for --corpus is not UTF-8 text")
    }
    let lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" }
    let corpus = SearchCorpus(names: lines.map { String($0).trimmingSpaces })
    guard !corpus.names.isEmpty else {
      throw InputFile.Failure(message: "'\(path)' for --corpus has no names (one per line)")
    }
    return corpus
  }
}
