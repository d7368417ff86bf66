/// A validated request to run one subcommand, with its options already typed.
///
/// The parser checked and converted every value, and every default, through the option's
/// ``OptionKey``, so reading one is a lookup that cannot fail: `invocation[key]` is the key's
/// type. Only keys of the options in the command's scope (its own and the global ones) apply;
/// another command's key is a programming error and stops with `preconditionFailure`.
///
/// ```swift
/// let latency = invocation[ProfileCommand.Option.latency]  // given value, else the default
/// if invocation.quiet { ... }
/// ```
package struct Invocation: Sendable, Equatable {
  /// The subcommand's name, such as `run`.
  package let command: String
  /// The positional arguments, in order.
  package let positionals: [String]
  /// The command line after the program's name, as given (for `--record`'s header).
  package var arguments: [String] = []
  /// The files the run reads (the values given to its options of kind ``ValueKind/file``):
  /// `--record` and `--trace` must not name one of them.
  package var readFiles: [String] = []
  /// Every option in the command's scope, filed under its long name, which is unique there
  /// (``ProgramSpec/problems()`` checks it); read through ``OptionKey``s only.
  private let options: [String: ParsedOption]

  init(command: String, options: [String: ParsedOption], positionals: [String]) {
    self.command = command
    self.options = options
    self.positionals = positionals
  }

  /// `--json`: print JSON Lines.
  package var json: Bool { self[ProgramSpec.jsonOption] }
  /// `--no-color`: no colors or escape codes.
  package var noColor: Bool { self[ProgramSpec.noColorOption] }
  /// `-q, --quiet`: only errors and the final result.
  package var quiet: Bool { self[ProgramSpec.quietOption] }

  /// The option's value as its key's type: for a flag whether it was given; for a value the
  /// last one given, else the table's default (`nil` when it has none); for a repeatable
  /// option every value given, in order.
  subscript<Value>(key: OptionKey<Value>) -> Value {
    guard let value = key.read(parsed(key)) else {
      preconditionFailure("'\(key.spec.longForm)' of '\(command)' was not read as \(Value.self)")
    }
    return value
  }

  /// Whether the option was given at all (rather than left to its default).
  func isGiven(_ key: some OptionKeyProtocol) -> Bool {
    parsed(key).isGiven
  }

  /// The option's last value as written on the command line, else its default as written in
  /// the table; `nil` when it has neither. For messages that quote the user's own words.
  func text(_ key: some OptionKeyProtocol) -> String? {
    parsed(key).values.last?.text
  }

  private func parsed(_ key: some OptionKeyProtocol) -> ParsedOption {
    guard let parsed = options[key.spec.name] else {
      preconditionFailure("'\(key.spec.longForm)' is not an option of '\(command)'")
    }
    return parsed
  }
}

/// One option of a parsed command line: whether it was given, and its values, each converted
/// once to the type of the option's key.
///
/// Two are equal when they were written the same: a value's conversion follows from its text.
struct ParsedOption: Sendable, Equatable {
  /// One value, as written and as converted.
  struct Value: Sendable, Equatable {
    /// The text on the command line, or the table's default.
    let text: String
    /// The value of the type of the option's key.
    let converted: any Sendable

    static func == (left: Self, right: Self) -> Bool { left.text == right.text }
  }

  /// Whether the command line gave the option; for a flag, whether it is on.
  var isGiven = false
  /// The values given, in order (only the last for an option that does not repeat); when none
  /// was given, the table's default alone, if it has one.
  var values: [Value] = []
}
