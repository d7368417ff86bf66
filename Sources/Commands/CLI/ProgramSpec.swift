/// The whole command table of a program: its global options and its subcommands.
///
/// `parse(_:spec:)`, ``HelpRenderer`` and `completionScript(shell:spec:)` all read this one
/// value. `-h/--help`, `--version`, `help` and `completions` are built in and need no entry.
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

  package var name: String
  package var version: String
  package var overview: String
  /// Options accepted before or after any subcommand.
  package var globalOptions: [OptionSpec]
  package var commands: [CommandSpec]
  package var exitStatuses: [ExitStatus]

  package init(
    name: String,
    version: String,
    overview: String,
    globalOptions: [OptionSpec] = standardGlobals,
    commands: [CommandSpec],
    exitStatuses: [ExitStatus] = []
  ) {
    self.name = name
    self.version = version
    self.overview = overview
    self.globalOptions = globalOptions
    self.commands = commands
    self.exitStatuses = exitStatuses
  }

  /// The output switches every loadctl subcommand understands.
  package static let standardGlobals: [OptionSpec] = [
    .flag("json", help: "Print machine-readable output as JSON Lines."),
    .flag("no-color", help: "Do not use colors or other terminal escape codes."),
    .flag("quiet", short: "q", help: "Print only errors and the final result."),
  ]

  /// The built-in `-h, --help`, listed in help and completions but handled by the parser.
  static let helpOption = OptionSpec.flag("help", short: "h", help: "Show help information.")
  /// The built-in `--version`, offered only before a subcommand.
  static let versionOption = OptionSpec.flag("version", help: "Show the version.")

  /// The shells `completions` can write a script for.
  package static let shells = ["bash", "zsh", "fish"]

  /// The built-in `help [<subcommand>]`.
  var helpCommand: CommandSpec {
    CommandSpec(
      name: "help",
      summary: "Show help for a subcommand.",
      positionals: [
        PositionalSpec(
          name: "subcommand", help: "The subcommand to describe.", isOptional: true,
          kind: .choice(allCommandNames))
      ])
  }

  /// The built-in `completions <shell>`.
  var completionsCommand: CommandSpec {
    CommandSpec(
      name: "completions",
      summary: "Print a shell completion script.",
      discussion:
        "Write the script where your shell looks for completions, then start a new shell.",
      positionals: [
        PositionalSpec(
          name: "shell", help: "The shell to complete for.", kind: .choice(Self.shells))
      ],
      examples: [
        "\(name) completions bash > ~/.local/share/bash-completion/completions/\(name)",
        "\(name) completions zsh > \"${fpath[1]}/_\(name)\"",
        "\(name) completions fish > ~/.config/fish/completions/\(name).fish",
      ])
  }

  /// The table's subcommands followed by the built-in ones.
  var allCommands: [CommandSpec] { commands + [helpCommand, completionsCommand] }

  var allCommandNames: [String] { commands.map(\.name) + ["help", "completions"] }

  /// The subcommand called `name`, built-ins included.
  func command(named name: String) -> CommandSpec? {
    allCommands.first { $0.name == name }
  }

  /// The options in force for `command` (or before any subcommand): its own, then the globals.
  func options(for command: CommandSpec?) -> [OptionSpec] {
    (command?.options ?? []) + globalOptions
  }

  /// The options help and completions list for `command`: those in force plus the built-ins.
  func listedOptions(for command: CommandSpec?) -> [OptionSpec] {
    options(for: command) + (command == nil ? [Self.versionOption] : []) + [Self.helpOption]
  }
}
