/// A mistake in the command line, reported to the user with a usage hint and exit status 64.
///
/// It is a struct over a private code so callers can show and compare errors without
/// switching over cases that may grow; the parser builds them through the static factories.
package struct UsageError: Error, Equatable, Sendable {
  private enum Code: Equatable, Sendable {
    case unknownOption
    case misplacedOption
    case unknownSubcommand
    case inapplicableOption
    case missingValue
    case unexpectedValue
    case invalidValue
    case missingArgument
    case unexpectedArgument
  }

  /// The exit status for a usage error (`EX_USAGE` from `sysexits.h`).
  package static let exitCode: Int32 = ExitStatus.usage

  private let code: Code
  /// One line saying what is wrong, without the `Error: ` prefix.
  package let message: String
  /// The subcommand the mistake was made in, if one was recognised.
  package let command: String?

  private init(_ code: Code, _ message: String, command: String?, suggestion: String? = nil) {
    self.code = code
    self.message = message + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")
    self.command = command
  }

  /// The exit status to leave with; always ``exitCode``.
  package var exitCode: Int32 { Self.exitCode }

  /// The three lines to print on standard error, without a trailing newline.
  ///
  /// ```
  /// Error: missing value for '--latency'
  /// Usage: loadctl run [options] <url>
  /// See 'loadctl run --help' for more information.
  /// ```
  package func render(program: ProgramSpec) -> String {
    let usage: String
    let helpCommand: String
    if let command, let spec = program.command(named: command) {
      usage = "\(program.name) \(spec.usageTail)"
      helpCommand = "\(program.name) \(command) --help"
    } else {
      usage = "\(program.name) <subcommand> [options]"
      helpCommand = "\(program.name) --help"
    }
    return ErrorLine.text(message) + """
      Usage: \(usage)
      See '\(helpCommand)' for more information.
      """
  }

  static func unknownOption(_ text: String, command: String?, suggestion: String?) -> Self {
    Self(.unknownOption, "unknown option '\(text)'", command: command, suggestion: suggestion)
  }

  static func misplacedOption(_ text: String) -> Self {
    Self(.misplacedOption, "option '\(text)' must come after its subcommand", command: nil)
  }

  /// `text` is shown as a URL would be (``URLAuthority/redactingLikelySecrets(_:)``): it may
  /// be a URL with a password, typed without its option.
  static func unknownSubcommand(_ text: String, suggestion: String?) -> Self {
    let shown = URLAuthority.redactingLikelySecrets(text)
    return Self(
      .unknownSubcommand, "unknown subcommand '\(shown)'", command: nil, suggestion: suggestion)
  }

  static func inapplicableOption(_ text: String, command: String) -> Self {
    Self(
      .inapplicableOption, "option '\(text)' cannot be used with '\(command)'", command: command)
  }

  static func missingValue(_ option: String, command: String?) -> Self {
    Self(.missingValue, "missing value for '\(option)'", command: command)
  }

  static func unexpectedValue(_ option: String, command: String?) -> Self {
    Self(.unexpectedValue, "option '\(option)' does not take a value", command: command)
  }

  /// A value the table's kinds accept but the command does not, such as two options that
  /// cannot be used together; subcommands throw it from their own checks.
  ///
  /// - Parameters:
  ///   - message: The whole message, such as `'--file' and '--url' cannot be used together`.
  ///   - command: The subcommand, for the usage line, or `nil` for the top level.
  package static func invalidValue(_ message: String, command: String?) -> Self {
    Self(.invalidValue, message, command: command)
  }

  static func missingArgument(_ name: String, command: String?) -> Self {
    Self(.missingArgument, "missing argument '\(name)'", command: command)
  }

  /// `text` is shown as a URL would be (``URLAuthority/redactingLikelySecrets(_:)``): it may
  /// be a URL with a password, typed without its option.
  static func unexpectedArgument(_ text: String, command: String?) -> Self {
    let shown = URLAuthority.redactingLikelySecrets(text)
    return Self(.unexpectedArgument, "unexpected argument '\(shown)'", command: command)
  }
}
