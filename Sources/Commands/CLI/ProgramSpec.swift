/// The whole command table of a program: its global options and its subcommands.
///
/// `parse(_:spec:)`, ``HelpRenderer``, ``ManPage`` and `completionScript(shell:spec:)` all read
/// this one value. `-h/--help`, `--version`, `help` and `completions` are built in and need no entry.
///
/// ```swift
/// let spec = ProgramSpec(
///   name: "loadctl", version: "0.1.0", overview: "Drive load against a service.",
///   globalOptions: ProgramSpec.standardGlobals,
///   commands: [CommandSpec(name: "run", summary: "Send requests.")])
/// ```
package struct ProgramSpec: Sendable {
  /// One row of the `EXIT STATUS:` section of the top-level help.
  package struct ExitStatus: Sendable, Equatable {
    /// The status as shown, such as `0` or `1-3`.
    package var code: String
    package var meaning: String

    package init(_ code: String, _ meaning: String) {
      self.code = code
      self.meaning = meaning
    }
  }

  /// One entry of the manual page's `ENVIRONMENT` section.
  package struct EnvironmentVariable: Sendable, Equatable {
    package var name: String
    package var meaning: String

    package init(_ name: String, _ meaning: String) {
      self.name = name
      self.meaning = meaning
    }
  }

  package var name: String
  package var version: String
  package var overview: String
  /// Options accepted before or after any subcommand.
  package var globalOptions: [OptionSpec]
  package var commands: [CommandSpec]
  package var exitStatuses: [ExitStatus]
  /// The variables the program reads, for the manual page.
  package var environment: [EnvironmentVariable]
  /// The manual page's `SEE ALSO` entries: a page such as `jq(1)`, or a sentence.
  package var seeAlso: [String]

  init(
    name: String,
    version: String,
    overview: String,
    globalOptions: [any OptionKeyProtocol] = standardGlobals,
    commands: [CommandSpec],
    exitStatuses: [ExitStatus] = [],
    environment: [EnvironmentVariable] = [],
    seeAlso: [String] = []
  ) {
    self.name = name
    self.version = version
    self.overview = overview
    self.globalOptions = globalOptions.map(\.spec)
    self.commands = commands
    self.exitStatuses = exitStatuses
    self.environment = environment
    self.seeAlso = seeAlso
  }

  /// The output switches every loadctl subcommand understands.
  static let standardGlobals: [any OptionKeyProtocol] = [jsonOption, noColorOption, quietOption]

  /// `--json`: print JSON Lines.
  static let jsonOption = OptionKey.flag(
    "json", help: "Print machine-readable output as JSON Lines.")
  /// `--no-color`: no colors or escape codes.
  static let noColorOption = OptionKey.flag(
    "no-color", help: "Do not use colors or other terminal escape codes.")
  /// `-q, --quiet`: only errors and the final result.
  static let quietOption = OptionKey.flag(
    "quiet", short: "q", help: "Print only errors and the final result.")

  /// The built-in `-h, --help`, listed in help and completions but handled by the parser.
  static let helpOption = OptionKey.flag("help", short: "h", help: "Show help information.")
  /// The built-in `--version`, offered only before a subcommand.
  static let versionOption = OptionKey.flag(
    "version", help: "Show the version (with --json, as a JSON object).")

  /// The shells `completions` can write a script for.
  package static let shells = ["bash", "zsh", "fish"]

  /// The built-in `help --man`: the manual page instead of help.
  static let manOption = OptionKey.flag(
    "man", help: "Print the manual page (roff) for the whole program instead.")

  /// The built-in `help [<subcommand>]` (and `help --man`).
  var helpCommand: CommandSpec {
    CommandSpec(
      name: "help",
      summary: "Show help for a subcommand.",
      options: [Self.manOption],
      positionals: [
        PositionalSpec(
          name: "subcommand", help: "The subcommand to describe.", isOptional: true,
          kind: .choice(allCommandNames))
      ],
      examples: ["\(name) help --man > \(name).1 && man -l \(name).1"],
      acceptsGlobalOptions: false)
  }

  /// The built-in `completions <shell>`.
  var completionsCommand: CommandSpec {
    CommandSpec(
      name: "completions",
      summary: "Print a shell completion script.",
      discussion: """
        Write the script where your shell looks for completions, then start a new shell. zsh \
        reads it from a directory in $fpath when compinit runs, so add the directory to fpath \
        before compinit in ~/.zshrc.
        """,
      positionals: [
        PositionalSpec(
          name: "shell", help: "The shell to complete for.", kind: .choice(Self.shells))
      ],
      examples: [
        "\(name) completions bash > ~/.local/share/bash-completion/completions/\(name)",
        "\(name) completions zsh > \"${fpath[1]}/_\(name)\"",
        "\(name) completions fish > ~/.config/fish/completions/\(name).fish",
      ],
      acceptsGlobalOptions: false)
  }

  /// The table's subcommands followed by the built-in ones.
  var allCommands: [CommandSpec] { commands + [helpCommand, completionsCommand] }

  var allCommandNames: [String] { commands.map(\.name) + ["help", "completions"] }

  /// The subcommand called `name`, built-ins included.
  func command(named name: String) -> CommandSpec? {
    allCommands.first { $0.name == name }
  }

  /// The options in force for `command` (or before any subcommand): its own, then the globals
  /// unless the command refuses them.
  func options(for command: CommandSpec?) -> [OptionSpec] {
    guard let command else { return globalOptions }
    return command.options + (command.acceptsGlobalOptions ? globalOptions : [])
  }

  /// The options help and completions list for `command`: those in force, but for the ones it
  /// refuses, plus the built-ins.
  func listedOptions(for command: CommandSpec?) -> [OptionSpec] {
    let refused = command?.refusedGlobalOptions ?? []
    return options(for: command).filter { !refused.contains($0.name) }
      + (command == nil ? [Self.versionOption.spec] : []) + [Self.helpOption.spec]
  }
}
