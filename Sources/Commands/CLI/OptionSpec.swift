/// Whether an option is a flag or takes a value; the name the brief's tables use.
package typealias OptionKind = OptionSpec.Kind

/// One `--name` option in the command table.
///
/// The table is the single source for parsing, help and completions, so an option is described
/// once here and never again by hand.
package struct OptionSpec: Sendable, Equatable {
  /// Whether an option stands alone or takes a value.
  package enum Kind: Sendable, Equatable {
    /// Present or absent, such as `--json`.
    case flag
    /// Followed by a value of the given kind, such as `--latency 300ms`.
    case value(ValueKind)
  }

  /// The long name without the leading `--`.
  package var name: String
  /// The one-letter name without the leading `-`, if any.
  package var short: Character?
  package var kind: Kind
  /// The placeholder shown in help, such as `DURATION`; empty for flags.
  package var valueName: String
  /// One sentence for help.
  package var help: String
  /// The value used when the option is absent, in the same text form a user would type.
  ///
  /// Help shows it as `(default: 300ms)`, and ``Invocation``'s getters fall back to it.
  package var defaultValue: String?
  /// Whether every occurrence is kept (read them with ``Invocation/strings(_:)``).
  ///
  /// When `false`, giving the option again replaces the earlier value: the last one wins.
  package var repeatable: Bool

  package init(
    name: String,
    short: Character? = nil,
    kind: Kind,
    valueName: String? = nil,
    help: String,
    defaultValue: String? = nil,
    repeatable: Bool = false
  ) {
    self.name = name
    self.short = short
    self.kind = kind
    if case .value(let valueKind) = kind {
      self.valueName = valueName ?? valueKind.defaultValueName
    } else {
      self.valueName = ""
    }
    self.help = help
    self.defaultValue = defaultValue
    self.repeatable = repeatable
  }

  /// A flag such as `-q, --quiet`.
  package static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
    OptionSpec(name: name, short: short, kind: .flag, help: help)
  }

  /// An option that takes a value, such as `--latency DURATION`.
  package static func value(
    _ name: String,
    short: Character? = nil,
    _ kind: ValueKind,
    valueName: String? = nil,
    help: String,
    default defaultValue: String? = nil,
    repeatable: Bool = false
  ) -> OptionSpec {
    OptionSpec(
      name: name, short: short, kind: .value(kind), valueName: valueName, help: help,
      defaultValue: defaultValue, repeatable: repeatable)
  }

  /// The kind of value, or `nil` for a flag.
  var valueKind: ValueKind? {
    if case .value(let valueKind) = kind { valueKind } else { nil }
  }

  /// `--name`, the spelling used in messages.
  var longForm: String { "--\(name)" }

  /// `-s, --name VALUE`, the label used in help.
  var helpLabel: String {
    var label = short.map { "-\($0), " } ?? ""
    label += longForm
    if valueKind != nil { label += " \(valueName)" }
    return label
  }
}
