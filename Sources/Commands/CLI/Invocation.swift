/// A validated request to run one subcommand, with typed access to its options.
///
/// Every value was checked against its ``ValueKind`` during parsing, so the getters return
/// plain values. Asking for an option the command does not declare, or with the wrong type,
/// is a programming error and stops with `preconditionFailure`.
///
/// ```swift
/// let latency = invocation.duration("latency")  // given value, else the table's default
/// if invocation.quiet { ... }
/// ```
package struct Invocation: Sendable, Equatable {
  /// The subcommand's name, such as `run`.
  package var command: String { spec.name }
  /// The positional arguments, in order.
  package let positionals: [String]

  let spec: CommandSpec
  let globalOptions: [OptionSpec]
  /// Every value given for each option, by long name; a flag maps to one empty string per use.
  let values: [String: [String]]

  init(
    spec: CommandSpec, globalOptions: [OptionSpec], values: [String: [String]],
    positionals: [String]
  ) {
    self.spec = spec
    self.globalOptions = globalOptions
    self.values = values
    self.positionals = positionals
  }

  /// `--json`: print JSON Lines.
  package var json: Bool { flag("json") }
  /// `--no-color`: no colors or escape codes.
  package var noColor: Bool { flag("no-color") }
  /// `-q, --quiet`: only errors and the final result.
  package var quiet: Bool { flag("quiet") }

  /// Whether the flag `--name` was given.
  package func flag(_ name: String) -> Bool {
    let option = declared(name)
    guard option.kind == .flag else {
      preconditionFailure("'--\(name)' of '\(command)' takes a value; read it with a typed getter")
    }
    return values[name] != nil
  }

  /// Whether the option `--name` was given at all (rather than left to its default).
  package func isGiven(_ name: String) -> Bool {
    _ = declared(name)
    return values[name] != nil
  }

  /// The last value of `--name`, else its default, as typed; works for any value kind.
  package func string(_ name: String) -> String? {
    text(name, accepting: { _ in true }, as: "text")
  }

  /// The last value of the integer option `--name`, else its default.
  package func int(_ name: String) -> Int? {
    let isInt: (ValueKind) -> Bool = { [.int, .nonNegativeInt, .positiveInt].contains($0) }
    return text(name, accepting: isInt, as: "an integer").map { converted($0, name, Int.init) }
  }

  /// The last value of the number option `--name`, else its default.
  package func double(_ name: String) -> Double? {
    text(name, accepting: { $0 == .double }, as: "a number").map {
      converted($0, name, Double.init)
    }
  }

  /// The last value of the duration option `--name`, else its default.
  package func duration(_ name: String) -> Duration? {
    text(name, accepting: { $0 == .duration }, as: "a duration").map {
      converted($0, name, parseDuration)
    }
  }

  /// The last value of `--name`, else the command table's default, which it must have: the one
  /// place a default is written.
  package func defaultedString(_ name: String) -> String { defaulted(name, string(name)) }

  /// ``int(_:)`` for an option with a default in the command table.
  package func defaultedInt(_ name: String) -> Int { defaulted(name, int(name)) }

  /// ``double(_:)`` for an option with a default in the command table.
  package func defaultedDouble(_ name: String) -> Double { defaulted(name, double(name)) }

  /// ``duration(_:)`` for an option with a default in the command table.
  package func defaultedDuration(_ name: String) -> Duration { defaulted(name, duration(name)) }

  /// The choice option `--name` as `Value`, else the table's default; a choice the table allows
  /// and `Value` lacks is a programming error.
  package func defaultedChoice<Value: RawRepresentable<String>>(_ name: String) -> Value {
    converted(defaultedString(name), name, Value.init(rawValue:))
  }

  private func defaulted<Value>(_ name: String, _ value: Value?) -> Value {
    guard let value else {
      preconditionFailure("'--\(name)' of '\(command)' has no default in the command table")
    }
    return value
  }

  /// Every value given for `--name`, in order; the default alone when none was given.
  package func strings(_ name: String) -> [String] {
    let option = declared(name)
    guard option.valueKind != nil else {
      preconditionFailure("'--\(name)' of '\(command)' is a flag; read it with flag(_:)")
    }
    return values[name] ?? option.defaultValue.map { [$0] } ?? []
  }

  private func declared(_ name: String) -> OptionSpec {
    guard let option = (spec.options + globalOptions).first(where: { $0.name == name }) else {
      preconditionFailure("'--\(name)' is not an option of '\(command)' in the command table")
    }
    return option
  }

  private func text(
    _ name: String, accepting isExpected: (ValueKind) -> Bool, as expected: String
  ) -> String? {
    let option = declared(name)
    guard let kind = option.valueKind, isExpected(kind) else {
      preconditionFailure("'--\(name)' of '\(command)' is not \(expected) in the command table")
    }
    return values[name]?.last ?? option.defaultValue
  }

  private func converted<T>(_ text: String, _ name: String, _ convert: (String) -> T?) -> T {
    guard let value = convert(text) else {
      preconditionFailure("'\(text)' for '--\(name)' is invalid; check the table's default")
    }
    return value
  }
}
