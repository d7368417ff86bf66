/// One subcommand in the command table, such as `loadctl run`.
///
/// Everything a user can learn about a subcommand (help, errors, completions) is rendered
/// from this value, so they cannot drift apart.
package struct CommandSpec: Sendable {
  package var name: String
  /// One line, shown in the top-level subcommand list and as the command's overview.
  package var summary: String
  /// Longer text shown under the overview in the command's help; may be empty.
  package var discussion: String
  package var options: [OptionSpec]
  package var positionals: [PositionalSpec]
  /// Complete command lines, shown under `EXAMPLES:`.
  package var examples: [String]
  /// Whether the program's global options apply; a built-in such as `completions`, whose
  /// output they cannot change, refuses them rather than silently ignoring them.
  package var acceptsGlobalOptions: Bool
  /// Names of global options the command takes only to refuse them with a message of its own
  /// (`replay` and the recorded run's `--clock`): help and completions leave them out.
  package var refusedGlobalOptions: Set<String>

  init(
    name: String,
    summary: String,
    discussion: String = "",
    options: [any OptionKeyProtocol] = [],
    positionals: [PositionalSpec] = [],
    examples: [String] = [],
    acceptsGlobalOptions: Bool = true,
    refusedGlobalOptions: [any OptionKeyProtocol] = []
  ) {
    self.name = name
    self.summary = summary
    self.discussion = discussion
    self.options = options.map(\.spec)
    self.positionals = positionals
    self.examples = examples
    self.acceptsGlobalOptions = acceptsGlobalOptions
    self.refusedGlobalOptions = Set(refusedGlobalOptions.map(\.spec.name))
  }

  /// The usage line after the program name, such as `run [options] <url>`.
  var usageTail: String {
    ([name, "[options]"] + positionals.map(\.usage)).joined(separator: " ")
  }
}
