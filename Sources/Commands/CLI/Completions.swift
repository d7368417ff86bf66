/// The shell completion script for `shell`, generated from the command table.
///
/// The scripts complete subcommands (built-ins included), each subcommand's options and the
/// global options, the words of `choice` and `suggested` values, files for `file` values and
/// positionals, and `bash|zsh|fish` after `completions`. Install them as
/// `completions/loadctl.bash`, `completions/_loadctl` and `completions/loadctl.fish` show.
///
/// - Parameters:
///   - shell: `bash`, `zsh` or `fish`.
///   - spec: The command table.
/// - Returns: The script, ending in a newline, or `nil` for any other shell.
package func completionScript(shell: String, spec: ProgramSpec) -> String? {
  switch shell {
  case "bash": BashCompletions(program: spec).script
  case "zsh": ZshCompletions(program: spec).script
  case "fish": FishCompletions(program: spec).script
  default: nil
  }
}

/// What a script should offer for a value of some kind.
///
/// The three generators share it so that a kind means the same thing in every shell.
enum CompletionAction: Equatable {
  /// Offer nothing: the value is free text or a number.
  case none
  /// Offer file names.
  case files
  /// Offer command names (the first word of a shell command).
  case commands
  /// Offer these words.
  case words([String])

  init(_ kind: ValueKind) {
    switch kind {
    case .file, .outputFile, .regularFile: self = .files
    case .command: self = .commands
    case .choice(let words), .suggested(let words): self = .words(words)
    default: self = .none
    }
  }
}

extension ProgramSpec {
  /// The value-taking global options, whose value a script must skip when looking for the
  /// subcommand word.
  var globalValueOptions: [OptionSpec] { globalOptions.filter { $0.valueKind != nil } }
}

extension OptionSpec {
  /// `--name` and `-s`, the words a shell offers for this option.
  var spellings: [String] { [longForm] + (short.map { ["-\($0)"] } ?? []) }
}
