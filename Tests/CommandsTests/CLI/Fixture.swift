@testable import LoadctlCommands

/// A small command table that exercises every kind of option, argument and value.
///
/// The tests use it instead of loadctl's real table, which other people change, so that a
/// new subcommand does not break the parser's tests.
enum CLIFixture {
  static let program = ProgramSpec(
    name: "loadctl",
    version: "1.2.3",
    overview: "Drive load against a service and watch how it copes, one subcommand per "
      + "experiment.",
    globalOptions: ProgramSpec.standardGlobals + [config],
    commands: [run, tick],
    exitStatuses: [
      .init("0", "Success."),
      .init("1", "The experiment ran and failed its checks."),
      .init("64", "The command line was wrong."),
    ])

  /// `-c, --config FILE`, the fixture's own global option.
  static let config = OptionKey.value(
    "config", short: "c", .file, help: "Read default settings from this file.")

  /// `run`'s options.
  enum RunOption {
    static let rate = OptionKey.value(
      "rate", short: "r", .positiveInt, help: "Requests per second.", default: "10")
    static let latency = OptionKey.value(
      "latency", short: "l", .duration, help: "Simulated latency of each request.",
      default: "300ms")
    static let policy = OptionKey.value(
      "policy", .choice(["drop", "latest", "queue", "parallel"]), valueName: "POLICY",
      help: "What to do with a request that arrives while another is running.",
      default: "drop")
    static let count = OptionKey.value(
      "count", .nonNegativeInt, help: "Stop after this many requests.")
    static let offset = OptionKey.value(
      "offset", .int, help: "Shift every timestamp by this many milliseconds.")
    static let min = OptionKey.value(
      "min", .double, help: "The lowest value to accept [inclusive]; it's \\ \"checked\" first.")
    static let header = OptionKey.values(
      "header", short: "H", .string, help: "An extra request header.")
    static let dryRun = OptionKey.flag(
      "dry-run", short: "n", help: "Print the plan without sending anything.")
  }

  static let run = CommandSpec(
    name: "run",
    summary: "Send requests at a fixed rate and report what happened.",
    discussion: "Requests that arrive while the service is busy are handled by the policy.",
    options: [
      RunOption.rate, RunOption.latency, RunOption.policy, RunOption.count, RunOption.offset,
      RunOption.min, RunOption.header, RunOption.dryRun,
    ],
    positionals: [PositionalSpec(name: "url", help: "The service to load.", kind: .url)],
    examples: ["loadctl run --rate 100 --latency 50ms http://localhost:8080"])

  /// `tick`'s options.
  enum TickOption {
    static let input = OptionKey.value(
      "input", short: "i", .file, help: "The recording, or - for standard input.")
    static let speed = OptionKey.value("speed", .double, help: "Playback speed.", default: "1")
    static let window = OptionKey.value(
      "window", .suggested(["last:10", "all"]), valueName: "WINDOW",
      help: "Which ticks to keep: last:N or all.")
  }

  static let tick = CommandSpec(
    name: "tick",
    summary: "Replay recorded ticks from a file.",
    options: [TickOption.input, TickOption.speed, TickOption.window],
    positionals: [
      PositionalSpec(
        name: "labels", help: "Only replay ticks with these labels.", isRepeating: true,
        isOptional: true, kind: .suggested(["up", "down"]))
    ])
}

extension Invocation {
  /// The run mode of this command line with no terminal, as under `swift test`.
  var modeWithoutTerminal: RunMode { RunMode(self, terminals: .none) }
}

extension TickerCommand {
  /// `--exec`'s settings as a run of this command line without a terminal checks them.
  static func execSettings(_ invocation: Invocation) throws(UsageError) -> ExecSettings? {
    try execSettings(invocation, mode: invocation.modeWithoutTerminal)
  }

  /// The random feed's settings as a run of this command line without a terminal sees them.
  static func randomSettings(_ invocation: Invocation) throws(UsageError) -> RandomSettings? {
    try randomSettings(invocation, mode: invocation.modeWithoutTerminal)
  }
}
