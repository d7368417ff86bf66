import LoadctlCore

/// An `--exec` template such as `grep -ril -- {query} docs`, and the results it prints.
///
/// The query is data, never shell code. Each request runs ``command`` with `/bin/sh -c` and the
/// query in its environment as `LOADCTL_QUERY`; each `{query}` of the template stands there as
/// `"$LOADCTL_QUERY"`, a quoted reference to it. A shell expands a parameter once and never reads
/// its value as syntax, so `'; rm -rf ~ #`, `$(touch x)` and `*` are searched for, never run or
/// expanded, whatever the reference stands in: a word, a here-document, a `case` pattern. A
/// template that hands text to another shell (`sh -c '…'`, `ssh`) writes `$LOADCTL_QUERY` in
/// that text itself, which the inner shell expands from the environment it inherits.
///
/// Refused, because there the reference would not stay a quoted reference to data: `{query}`
/// inside quotes (it would lose its own quotes, or be text), after a backslash, or inside
/// arithmetic, `$(( ))` or `(( ))`, whose operands bash (not dash, Debian's `/bin/sh`) evaluates
/// again as expressions, array subscripts and `$(…)` included. Refused too where bash (`/bin/sh`
/// on Fedora, Arch, macOS) may evaluate the reference's *value* as arithmetic: after `$[`, in
/// `${…}`, `[[ … ]]`, an assignment or a subscript, and in the arguments of `let`, `declare`,
/// `read`, `unset` and the like (``Placement/arithmetic(_:)``). In a comment it is inert. The
/// template is read as dash reads it, byte by byte (``placement(of:)``); where the lexer cannot be
/// sure that every `/bin/sh` reads it so (a `case` inside `$(…)`, bash's `$'…'`), a template with
/// a `{query}` is refused too. Each non-blank stdout line is a result, in the order printed.
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

  /// Checks that the template uses the query and that each `{query}` stands where its reference
  /// stays a quoted word.
  /// - Throws: `UsageError` (exit 64) naming what is wrong with it.
  package init(_ template: String) throws(UsageError) {
    let bytes = Array(template.utf8)
    let placeholder = Array(Self.placeholder.utf8)
    guard
      Self.occurrences(of: placeholder, in: bytes) > 0
        || Self.occurrences(of: Array(Self.variable.utf8), in: bytes) > 0
    else {
      throw UsageError.invalidValue(
        "'--exec' needs \(Self.placeholder) where the query goes, e.g. "
          + "'grep -ril -- {query} docs' (or $\(Self.variable) in a string of your own)",
        command: "search")
    }
    switch Self.placement(of: template) {
    case .bare: break
    case .quoted:
      throw UsageError.invalidValue(
        "\(Self.placeholder) in '--exec' must stand outside quotes, backslashes and arithmetic "
          + "(it becomes \(Self.reference); in a string of your own, write $\(Self.variable)): "
          + "'\(template)'", command: "search")
    case .arithmetic(let construct):
      throw UsageError.invalidValue(
        "\(Self.placeholder) in '--exec' must not stand where bash may evaluate its value "
          + "(\(construct)): a query such as a[$(cmd)] would run cmd: '\(template)'",
        command: "search")
    case .unsure(let reason):
      throw UsageError.invalidValue(
        "cannot tell where \(Self.placeholder) stands in '--exec' (\(reason)); write "
          + "\(Self.reference) there yourself: '\(template)'", command: "search")
    }
    self.template = template
    let parts = bytes.split(separator: placeholder, omittingEmptySubsequences: false)
    self.command = String(
      decoding: Array(parts.joined(separator: Array(Self.reference.utf8))), as: UTF8.self)
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
