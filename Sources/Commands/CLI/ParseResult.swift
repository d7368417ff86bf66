/// What the command line asked for, once parsed.
///
/// Help, version and completions are answered by the command-line layer itself; only `.run`
/// reaches a subcommand.
package enum ParseResult: Sendable, Equatable {
  /// `-h`, `--help`, `help [<subcommand>]`, or no subcommand (no arguments, or only global
  /// options): show help (top level if `nil`).
  case help(command: String?)
  /// `--version`: print the program's version, as a JSON object with `--json`.
  case version(json: Bool)
  /// `completions <shell>`: print the completion script for a shell in ``ProgramSpec/shells``.
  case completions(shell: String)
  /// `help --man`: print the manual page.
  case manual
  /// Run a subcommand.
  case run(Invocation)
}
