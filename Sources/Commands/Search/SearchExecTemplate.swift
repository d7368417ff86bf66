import LoadctlCore

/// An `--exec` template such as `grep -ril -- {query} docs`, and the results it prints.
///
/// The query is data, never shell code, by construction: each request runs ``command`` with
/// `/bin/sh -c` and the query in its environment as `LOADCTL_QUERY`, and each `{query}` of the
/// template stands there as `"$LOADCTL_QUERY"`, a quoted reference to it. A shell expands a
/// parameter once and never reads its value as syntax, so `'; rm -rf ~ #`, `$(touch x)` and `*`
/// are searched for, never run or expanded. What the template's own code does with the value
/// (`eval`, arithmetic, `bash -c "…"`, `ssh`) is the template's, as with
/// `find -exec sh -c '…' sh {}`. One common mistake is refused: `{query}` inside quotes or after
/// a backslash, where its reference would lose its quotes or be text. Each non-blank stdout line
/// is a result, in the order printed.
package struct SearchExecTemplate: Sendable, Equatable {
  package static let placeholder = "{query}"
  /// The environment variable that holds the query.
  package static let variable = "LOADCTL_QUERY"
  /// What each `{query}` becomes in ``command``.
  package static let reference = "\"$\(variable)\""

  /// The template as given.
  package let template: String
  /// The shell command every request runs: the template with each `{query}` a ``reference``.
  package let command: String

  /// Checks that the template uses the query, and that no `{query}` stands inside quotes or
  /// after a backslash.
  /// - Throws: `UsageError` (exit 64) naming what is wrong with it.
  package init(_ template: String) throws(UsageError) {
    let bytes = Array(template.utf8)
    let placeholder = Array(Self.placeholder.utf8)
    let parts = bytes.split(separator: placeholder, omittingEmptySubsequences: false)
    guard parts.count > 1 || template.contains(Self.variable) else {
      throw UsageError.invalidValue(
        "'--exec' needs \(Self.placeholder) where the query goes, e.g. "
          + "'grep -ril -- {query} docs' (or $\(Self.variable) in a string of your own)",
        command: "search")
    }
    guard !Self.quotesAPlaceholder(parts) else {
      throw UsageError.invalidValue(
        "\(Self.placeholder) in '--exec' must stand outside quotes and backslashes "
          + "(it becomes \(Self.reference); in a string of your own, write $\(Self.variable)): "
          + "'\(template)'", command: "search")
    }
    self.template = template
    self.command = String(
      decoding: Array(parts.joined(separator: Array(Self.reference.utf8))), as: UTF8.self)
  }

  /// Whether a placeholder between `parts` stands inside `'…'` or `"…"`, or right after a
  /// backslash, reading quotes and backslashes as a shell's words do: the common mistake, not
  /// every one (comments and here-documents are not followed).
  private static func quotesAPlaceholder(_ parts: [ArraySlice<UInt8>]) -> Bool {
    enum Quote { case none, single, double }
    var quote = Quote.none
    var escaped = false
    for (index, part) in parts.enumerated() {
      if index > 0, quote != .none || escaped { return true }
      for byte in part {
        if escaped {
          escaped = false
          continue
        }
        switch (quote, byte) {
        case (.single, UInt8(ascii: "'")): quote = .none
        case (.single, _): break
        case (_, UInt8(ascii: "\\")): escaped = true
        case (.none, UInt8(ascii: "'")): quote = .single
        case (.none, UInt8(ascii: "\"")): quote = .double
        case (.double, UInt8(ascii: "\"")): quote = .none
        default: break
        }
      }
    }
    return false
  }

  /// The environment of the request for `query`: `base` with ``variable`` set to it.
  package func environment(for query: String, base: [String: String]) -> [String: String] {
    var environment = base
    environment[Self.variable] = query
    return environment
  }

  /// The results in a command's stdout: its lines, without `\r\n` endings, blank lines dropped,
  /// the first `limit` kept and all of them counted.
  package static func results(_ stdout: [UInt8], limit: Int) -> SearchHits {
    let lines = stdout.split(separator: UInt8(ascii: "\n")).map { line in
      String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
    }
    let names = lines.filter { !$0.allSatisfy(\.isWhitespace) }
    return SearchHits(items: Array(names.prefix(limit)), total: names.count)
  }
}
