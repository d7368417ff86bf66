/// Whether an option is a flag or takes a value (`OptionSpec.Kind`, by a shorter name).
package typealias OptionKind = OptionSpec.Kind

/// One `--name` option in the command table.
///
/// The table is the single source for parsing, help and completions, so an option is described
/// once here and never again by hand. Each is made by an ``OptionKey``, which also gives it the
/// conversion of its values to the key's type.
package struct OptionSpec: Sendable {
  /// Whether an option stands alone or takes a value.
  package enum Kind: Sendable, Equatable {
    /// Present or absent, such as `--json`.
    case flag
    /// Followed by a value of the given kind, such as `--latency 300ms`.
    case value(ValueKind)
  }

  /// The long name without the leading `--`.
  package let name: String
  /// The one-letter name without the leading `-`, if any.
  package let short: Character?
  package let kind: Kind
  /// The placeholder shown in help, such as `DURATION`; empty for flags.
  package let valueName: String
  /// One sentence for help.
  package let help: String
  /// The value used when the option is absent, in the same text form a user would type.
  ///
  /// Help shows it as `(default: 300ms)`; the parser converts it like a given value.
  package let defaultValue: String?
  /// Whether every occurrence is kept (an ``OptionKey`` made by `values(…)` reads them all).
  ///
  /// When `false`, giving the option again replaces the earlier value: the last one wins.
  package let repeatable: Bool
  /// Checks one value's text and converts it to the type of the option's key; `nil` for a flag.
  private let convert: (@Sendable (String) throws(ValueProblem) -> any Sendable)?

  /// A flag, whose only value is being there.
  init(flag name: String, short: Character?, help: String) {
    self.name = name
    self.short = short
    self.kind = .flag
    self.valueName = ""
    self.help = help
    self.defaultValue = nil
    self.repeatable = false
    self.convert = nil
  }

  /// An option whose values `type` checks and converts.
  init<Value>(
    name: String, short: Character?, type: ValueType<Value>, valueName: String?, help: String,
    defaultValue: String?, repeatable: Bool
  ) {
    self.name = name
    self.short = short
    self.kind = .value(type.kind)
    self.valueName = valueName ?? type.kind.defaultValueName
    self.help = help
    self.defaultValue = defaultValue
    self.repeatable = repeatable
    let longForm = "--\(name)"
    self.convert = { text throws(ValueProblem) in try type.read(text, longForm) }
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

  /// `text` checked and converted to the type of the option's key, in one step.
  /// - Throws: ``ValueProblem`` when it is not a valid value, or the option is a flag.
  func value(of text: String) throws(ValueProblem) -> any Sendable {
    guard let convert else { throw ValueProblem("option '\(longForm)' does not take a value") }
    return try convert(text)
  }
}
