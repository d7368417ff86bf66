/// One option of the command table, with the Swift type a command reads it as.
///
/// Declared once, as a static constant beside its command's spec: the table lists it (its
/// ``spec`` drives parsing, help, the manual page and completions), the parser converts each of
/// its values and its default to `Value` while checking them, and ``Invocation`` hands them back
/// typed through the key. A misspelt option is a compile error, and nothing reads its text again.
///
/// ```swift
/// enum Option {
///   static let latency = OptionKey.value("latency", .duration, help: "Delay.", default: "1s")
///   static let fail = OptionKey.value("fail", .string, help: "Fail with this message.")
///   static let header = OptionKey.values("header", .string, help: "Send this header.")
///   static let naive = OptionKey.flag("naive", help: "No debounce.")
/// }
/// let latency: Duration = invocation[Option.latency]  // the given value, else the default
/// let fail: String? = invocation[Option.fail]
/// let headers: [String] = invocation[Option.header]  // every value, in order
/// let naive: Bool = invocation[Option.naive]
/// ```
struct OptionKey<Value: Sendable>: OptionKeyProtocol {
  /// The option's entry in the command table.
  let spec: OptionSpec
  /// The option's parsed values as `Value`; `nil` only if the parser did not convert them with
  /// this key's ``ValueType``, which cannot happen to an option declared through the key.
  let read: @Sendable (ParsedOption) -> Value?
}

/// What every ``OptionKey`` has, whatever its value's type: its entry in the table.
///
/// A command table lists keys of many types through it, and ``Invocation/isGiven(_:)`` takes
/// any key.
protocol OptionKeyProtocol: Sendable {
  var spec: OptionSpec { get }
}

extension OptionKey<Bool> {
  /// A flag such as `-q, --quiet`: `true` when given.
  static func flag(_ name: String, short: Character? = nil, help: String) -> Self {
    Self(spec: OptionSpec(flag: name, short: short, help: help)) { $0.isGiven }
  }
}

extension OptionKey {
  /// An option with a default in the table, such as `--latency DURATION`: the last value given,
  /// else the default.
  static func value(
    _ name: String, short: Character? = nil, _ type: ValueType<Value>, valueName: String? = nil,
    help: String, default defaultValue: String
  ) -> Self {
    let spec = OptionSpec(
      name: name, short: short, type: type, valueName: valueName, help: help,
      defaultValue: defaultValue, repeatable: false)
    return Self(spec: spec) { $0.values.last?.converted as? Value }
  }

  /// An option without a default, such as `--input FILE`: the last value given, or `nil`.
  static func value<Wrapped>(
    _ name: String, short: Character? = nil, _ type: ValueType<Wrapped>,
    valueName: String? = nil, help: String
  ) -> Self where Value == Wrapped? {
    let spec = OptionSpec(
      name: name, short: short, type: type, valueName: valueName, help: help,
      defaultValue: nil, repeatable: false)
    return Self(spec: spec) { parsed in
      guard let last = parsed.values.last else { return .some(nil) }
      return (last.converted as? Wrapped).map { .some($0) }
    }
  }

  /// An option that may be given again and again, such as `--header 'NAME: VALUE'`: every
  /// value, in order; empty when none was given.
  static func values<Element>(
    _ name: String, short: Character? = nil, _ type: ValueType<Element>,
    valueName: String? = nil, help: String
  ) -> Self where Value == [Element] {
    let spec = OptionSpec(
      name: name, short: short, type: type, valueName: valueName, help: help,
      defaultValue: nil, repeatable: true)
    return Self(spec: spec) { parsed in
      let values = parsed.values.compactMap { $0.converted as? Element }
      return values.count == parsed.values.count ? values : nil
    }
  }
}
