import LoadctlCore

/// The one table of subcommands: parsing, help, completions and dispatch all read it.
package enum CommandTable {
  /// The program's version, printed by `--version`.
  package static let version = "0.1.0"

  /// The versions every `start` event carries, and `--version --json` prints:
  /// `{"schema_version":1,"loadctl_version":"0.1.0"}`.
  static let versionFields: [(String, JSONValue)] = [
    ("schema_version", 1), ("loadctl_version", .string(version)),
  ]

  /// Runs a subcommand with the environment and returns how the process ends; throws when the
  /// run ends before its flow starts.
  package typealias Runner =
    @Sendable (Invocation, [String: String]) async throws(EarlyExit) -> ProcessEnd

  /// Runs a flow's subcommand with its shared options already typed (a replay sets them).
  package typealias Starter =
    @Sendable (Invocation, RunOptions, [String: String]) async throws(EarlyExit) -> ProcessEnd

  /// The subcommands that run a flow, each with what starts it.
  static let flows: [(spec: CommandSpec, start: Starter)] = [
    flow(ProfileCommand.self), flow(SearchCommand.self), flow(CounterCommand.self),
    flow(TimerCommand.self), flow(TickerCommand.self),
  ]

  /// Every subcommand with its runner: the flows, then `replay`.
  static let entries: [(spec: CommandSpec, run: Runner)] =
    flows.map { flow in
      let runner: Runner = { invocation, environment throws(EarlyExit) in
        // The shared options and the run mode are typed once, from the terminals as they are.
        let run = RunOptions(invocation, environment: environment, terminals: .current())
        return try await flow.start(invocation, run, environment)
      }
      return (flow.spec, runner)
    } + [(ReplayCommand.spec, ReplayCommand.run)]

  /// A flow's table entry: it types the subcommand's own options, then runs it.
  static func flow<Command: Subcommand>(_: Command.Type) -> (spec: CommandSpec, start: Starter) {
    let start: Starter = { invocation, run, environment throws(EarlyExit) in
      let options = try Command.options(invocation, run, environment: environment)
      return try await Command.run(options, run)
    }
    return (Command.spec, start)
  }

  /// What starts the flow of the subcommand `name`, for a replay.
  static func starter(for name: String) -> Starter? {
    flows.first { $0.spec.name == name }?.start
  }

  /// The command-line surface.
  package static let program = ProgramSpec(
    name: "loadctl",
    version: version,
    overview: """
      Run async loading flows with structured concurrency and watch every state transition as \
      it happens. Text by default; JSON Lines with --json.
      """,
    globalOptions: ProgramSpec.standardGlobals + [
      interactiveOption, noInputOption, clockOption, traceOption, timelineOption, recordOption,
      denyOption, allowOption,
    ],
    commands: entries.map(\.spec),
    exitStatuses: [
      .init("0", "The flow finished."),
      .init("1", "The flow ended failed (e.g. profile failed after its retries)."),
      .init("3", "A lint named by --deny was raised in a run that would otherwise have ended 0."),
      .init("4", "replay: the replay diverged from its recording (or --check found it did)."),
      .init("64", "Usage error: bad option, argument or value."),
      .init("65", "Bad input data: a rejected input line, or a file that cannot be used."),
      .init("69", "A tool loadctl needs is missing (curl for --url)."),
      .init("71", "Too few file descriptors or threads to run (raise 'ulimit -n' or 'ulimit -u')."),
      .init(
        "74", "Writing stdout, the --trace file or the --record file failed (e.g. a full disk)."),
      .init("129", "Hung up by SIGHUP (the process dies by the signal)."),
      .init("130", "Interrupted by SIGINT (the process dies by the signal)."),
      .init("131", "Quit by SIGQUIT (Ctrl-\\): at once, no cleanup."),
      .init("141", "stdout was closed by its reader (SIGPIPE); nothing is printed."),
      .init("143", "Terminated by SIGTERM (the process dies by the signal)."),
    ],
    environment: [
      .init("NO_COLOR", "When set and not empty, no colours or escape codes (as --no-color)."),
      .init("TERM", "When dumb, no colours or escape codes."),
      .init(
        "FORCE_COLOR",
        "When set to anything but empty or 0, colours even into a pipe; NO_COLOR and "
          + "--no-color still win. CLICOLOR_FORCE does the same."),
      .init("COLUMNS", "The width help and --timeline wrap to (20 to 1000; otherwise 80)."),
    ],
    seeAlso: [
      "jq(1)",
      "The JSON Lines events and their JSON Schemas: docs/events.md in the source repository.",
    ])

  /// `-i, --interactive`: read keys at a terminal even when the flow would end by itself.
  static let interactiveOption = OptionKey.flag(
    "interactive", short: "i",
    help: "At a terminal, read keys even when the flow ends by itself: profile then ends with "
      + "q; a timer with --ticks or --duration takes keys until its limit ends it.")

  /// `--no-input`: never read the terminal.
  static let noInputOption = OptionKey.flag(
    "no-input", help: "Never read keys from the terminal, even when nothing else would end the run."
  )

  /// `--clock continuous|virtual`, for every subcommand.
  static let clockOption = OptionKey.value(
    "clock", .choice([ClockChoice.continuous, .virtual]),
    help: "continuous (real time) or virtual: jump to the next deadline as soon as all work "
      + "waits, so the same input gives the same output, instantly.",
    default: "continuous")

  /// `--trace FILE`: the run's tasks and effects in Chrome Trace Event Format.
  static let traceOption = OptionKey.value(
    "trace", .outputFile,
    help: "Write the run's effects, sleeps and events to FILE in Chrome Trace Event Format "
      + "(open it in Perfetto UI or chrome://tracing).")

  /// `--record FILE`: a recording of the run that `loadctl replay` runs again.
  static let recordOption = OptionKey.value(
    "record", .outputFile,
    help: "Record the run to FILE: every input, key, signal and effect result with its time, "
      + "and every event; 'loadctl replay FILE' runs it again on virtual time "
      + "(docs/recording.md).")

  /// `--timeline`: a picture of effect lifetimes on stderr at the end.
  static let timelineOption = OptionKey.flag(
    "timeline", help: "At the end, draw each effect's lifetime on stderr (█ running, ✓ ╳ ✗ ends).")

  /// `--deny LINT[,LINT…]`: a run that raised one of these lints ends with status 3.
  static let denyOption = OptionKey.values(
    "deny", .lints, valueName: "LINT[,LINT...]",
    help: "End with status 3 when one of these lints is raised (all for every lint): "
      + Lint.all.map(\.name).joined(separator: ", ") + ".")

  /// `--allow LINT[,LINT…]`: never report these lints.
  static let allowOption = OptionKey.values(
    "allow", .lints, valueName: "LINT[,LINT...]",
    help: "Never report these lints (all for every lint).")

  /// The values of `--clock`.
  enum ClockChoice: String, Sendable {
    /// Real time.
    case continuous
    /// Time that jumps to the next deadline as soon as all work waits.
    case virtual
  }

  /// The runner for a subcommand.
  static func runner(for name: String) -> Runner? {
    entries.first { $0.spec.name == name }?.run
  }
}
