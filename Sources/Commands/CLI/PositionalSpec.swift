/// One positional argument in the command table, such as `<url>`.
///
/// Positionals are matched in order; only the last one may repeat.
package struct PositionalSpec: Sendable, Equatable {
  package var name: String
  package var help: String
  /// Whether it takes every remaining argument (`<name> ...`).
  package var isRepeating: Bool
  /// Whether it may be left out (`[<name>]`).
  package var isOptional: Bool
  /// How the value is validated and completed; most positionals are free text.
  package var kind: ValueKind

  package init(
    name: String,
    help: String,
    isRepeating: Bool = false,
    isOptional: Bool = false,
    kind: ValueKind = .string
  ) {
    self.name = name
    self.help = help
    self.isRepeating = isRepeating
    self.isOptional = isOptional
    self.kind = kind
  }

  /// `<name>`, the spelling used in messages and help.
  var displayName: String { "<\(name)>" }

  /// `<name>`, `[<name>]`, `<name> ...` or `[<name> ...]`, as it appears in a usage line.
  var usage: String {
    let core = isRepeating ? "\(displayName) ..." : displayName
    return isOptional ? "[\(core)]" : core
  }
}
