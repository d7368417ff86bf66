import LoadctlCore

/// An `--exec` template such as `grep -ril -- {query} docs`, and the results it prints.
///
/// Each request runs the template with `/bin/sh -c`, every `{query}` replaced by the query quoted
/// as one shell word (``ExternalCommand/substituting(_:query:)``), so the shell reads the query as
/// data whatever it holds: `'; rm -rf ~ #` and `$(touch x)` are searched for, never run. For that
/// to hold, `{query}` must stand outside quotes and comments: in `'{query}'` the two pairs of
/// quotes would cancel out and leave the query bare, and a newline in the query would end a
/// comment, so such templates are refused. Each non-blank stdout line is a result, in the order
/// printed.
package struct SearchExecTemplate: Sendable, Equatable {
  package static let placeholder = "{query}"
  package let template: String

  /// Checks that the template has a placeholder and that each one stands outside quotes,
  /// comments and backslashes.
  /// - Throws: `UsageError` (exit 64) naming what is wrong with it.
  package init(_ template: String) throws(UsageError) {
    guard template.contains(Self.placeholder) else {
      throw UsageError.invalidValue(
        "'--exec' needs \(Self.placeholder) where the query goes, e.g. "
          + "'grep -ril -- {query} docs'", command: "search")
    }
    guard Self.placeholdersAreBare(template) else {
      throw UsageError.invalidValue(
        "\(Self.placeholder) in '--exec' must stand outside quotes, comments and backslashes "
          + "(loadctl quotes the query itself): '\(template)'", command: "search")
    }
    self.template = template
  }

  /// The shell command for `query`.
  package func command(for query: String) -> String {
    ExternalCommand.substituting(template, query: query)
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

  /// Whether every `{query}` in `template` is outside single and double quotes and comments and
  /// not after a backslash, as a POSIX shell reads it (a quoted query may hold a newline, which
  /// would end a comment). Conservative: `"$({query})"` is refused too.
  static func placeholdersAreBare(_ template: String) -> Bool {
    enum Context { case none, single, double, comment }
    let characters = Array(template)
    let marker = Array(placeholder)
    var quoting = Context.none
    var bare = 0
    var index = 0
    while index < characters.count {
      let character = characters[index]
      switch (quoting, character) {
      case (.none, _) where characters[index...].starts(with: marker):
        bare += 1
        index += marker.count
        continue
      case (.none, "\\"), (.double, "\\"): index += 1  // the next character is escaped
      case (.none, "'"): quoting = .single
      case (.none, "\""): quoting = .double
      case (.none, "#") where index == 0 || " \t\n;&|()<>".contains(characters[index - 1]):
        quoting = .comment
      case (.single, "'"), (.double, "\""), (.comment, "\n"): quoting = .none
      default: break
      }
      index += 1
    }
    let all = template.split(separator: Self.placeholder, omittingEmptySubsequences: false)
    return bare == all.count - 1
  }
}
