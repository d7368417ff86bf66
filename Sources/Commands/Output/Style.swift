/// Terminal colour for text output, decided once from the environment and the flags.
///
/// Colour is on when stdout is a terminal and neither `--no-color`, a non-empty `NO_COLOR`, nor
/// `TERM=dumb` says otherwise, so a pipe receives no escape code unless asked: a non-empty
/// `FORCE_COLOR` or `CLICOLOR_FORCE` other than `0` turns colour on anywhere (`| less -R`), but
/// `--no-color` and `NO_COLOR` still win.
package struct Style: Sendable {
  /// Whether escape codes are written at all.
  package let enabled: Bool

  package init(enabled: Bool) { self.enabled = enabled }

  /// Decides from a terminal check, the `--no-color` flag and the environment.
  package static func detect(isTerminal: Bool, noColorFlag: Bool, environment: [String: String])
    -> Style
  {
    let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
    if noColorFlag || noColor { return Style(enabled: false) }
    let forced = ["FORCE_COLOR", "CLICOLOR_FORCE"].contains { name in
      guard let value = environment[name] else { return false }
      return !value.isEmpty && value != "0"
    }
    if forced { return Style(enabled: true) }
    return Style(enabled: isTerminal && environment["TERM"] != "dumb")
  }

  package func dim(_ text: String) -> String { wrap(text, "2") }
  package func bold(_ text: String) -> String { wrap(text, "1") }
  package func red(_ text: String) -> String { wrap(text, "31") }
  package func green(_ text: String) -> String { wrap(text, "32") }
  package func yellow(_ text: String) -> String { wrap(text, "33") }
  package func cyan(_ text: String) -> String { wrap(text, "36") }

  /// TCA `_printChanges` style: the changed fields (`count: 1 → 2, isLoading: true → false`), or
  /// a dim `(no state changes)`.
  package func changes(_ changes: [String]) -> String {
    changes.isEmpty ? dim("(no state changes)") : changes.joined(separator: ", ")
  }

  private func wrap(_ text: String, _ code: String) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}
