#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which of the standard descriptors are terminals, looked at once when a run starts.
package struct Terminals: Sendable, Equatable {
  package var stdin: Bool
  package var stdout: Bool
  package var stderr: Bool

  /// No terminal at all: pipes and files, as in tests and scripts.
  package static let none = Terminals(stdin: false, stdout: false, stderr: false)

  /// This process's descriptors 0, 1 and 2.
  package static func current() -> Terminals {
    Terminals(stdin: isatty(0) == 1, stdout: isatty(1) == 1, stderr: isatty(2) == 1)
  }
}

/// How a run meets time and the person at the terminal, decided once from the global options
/// and the terminals; the runtime and every command read it from here.
package struct RunMode: Sendable, Equatable {
  /// `--clock virtual`: time jumps to the next deadline whenever all work waits.
  package let isVirtual: Bool
  /// Keys may be read: stdin is a terminal, time is real, and `--no-input` was not given (in a
  /// replay: they were, and the recording holds them).
  package let readsKeys: Bool
  /// `-i`: read keys even when the flow would end by itself.
  package let interactive: Bool
  /// Which standard descriptors are terminals.
  package let terminals: Terminals
  /// `loadctl replay`: virtual time, no process, no input; everything from the recording.
  package private(set) var isReplay = false
  /// A replay's seed, as the recorded run's `start` event echoed it.
  package private(set) var recordedSeed: UInt64?
  /// A replay's `options`, as the recorded run's `start` event printed them: what a replay
  /// prints again without reading what they were read from (a `--corpus` file's size).
  package private(set) var recordedOptions: JSONValue?

  package init(_ invocation: Invocation, terminals: Terminals) {
    isVirtual = invocation[CommandTable.clockOption] == .virtual
    interactive = invocation[CommandTable.interactiveOption]
    readsKeys = terminals.stdin && !isVirtual && !invocation[CommandTable.noInputOption]
    self.terminals = terminals
  }

  private init(isVirtual: Bool, interactive: Bool = false, readsKeys: Bool = false) {
    self.isVirtual = isVirtual
    self.readsKeys = readsKeys
    self.interactive = interactive
    terminals = .none
  }

  /// The mode of a replay of a run made with `invocation`: virtual time, no terminal; its
  /// options read as the recorded run read them (keys, when its stdin was a terminal), the keys
  /// themselves coming from the recording.
  package static func replay(
    of invocation: Invocation, options: JSONValue?, stdinTerminal: Bool
  ) -> RunMode {
    let recorded = RunMode(
      invocation, terminals: Terminals(stdin: stdinTerminal, stdout: false, stderr: false))
    var mode = RunMode(
      isVirtual: true, interactive: invocation[CommandTable.interactiveOption],
      readsKeys: recorded.readsKeys)
    mode.isReplay = true
    mode.recordedOptions = options
    if case .int(let seed)? = options?["seed"] { mode.recordedSeed = UInt64(exactly: seed) }
    return mode
  }

  /// Real time, no terminal: a run driven by its options and input alone.
  package static let continuous = RunMode(isVirtual: false)

  /// The spinner draws on stderr: a terminal, on real time.
  package var showsSpinner: Bool { terminals.stderr && !isVirtual }
}

/// The options every subcommand shares, typed once from the command line and the environment.
package struct RunOptions: Sendable {
  /// The subcommand's name, as events and errors name it.
  package let command: String
  /// `--json`: JSON Lines on stdout.
  package var json: Bool
  /// `-q, --quiet`: only problems and the result in text mode.
  package var quiet: Bool
  /// Colours, from `--no-color`, the environment and whether stdout is a terminal.
  package var style: Style
  /// Whether any terminal escape code may be written (to stdout or stderr): not with
  /// `--no-color`, a non-empty `NO_COLOR`, or `TERM=dumb`. The spinner needs them.
  package var escapesAllowed = true
  /// The clock and the terminal's part in the run.
  package var mode: RunMode
  /// `--trace FILE`.
  package var tracePath: String?
  /// `--timeline`.
  package var timeline: Bool
  /// The width `--timeline` wraps to (`COLUMNS`).
  package let width: Int
  /// `--allow` and `--deny`.
  package let lints: LintPolicy
  /// `--record FILE`.
  package var recordPath: String?
  /// The command line after the program's name, for the recording's header.
  package let arguments: [String]
  /// The files the run reads (`-`: stdin), which `--record` and `--trace` must not name (a
  /// replay adds its recording).
  package var readFiles: [String]
  /// The recording this run replays (`loadctl replay`).
  package var replay: ReplaySession?
  /// `loadctl replay --check`: the events are checked, not printed.
  package var discardsOutput = false

  package init(_ invocation: Invocation, environment: [String: String], terminals: Terminals) {
    command = invocation.command
    json = invocation.json
    quiet = invocation.quiet
    escapesAllowed =
      !invocation.noColor && (environment["NO_COLOR"] ?? "").isEmpty
      && environment["TERM"] != "dumb"
    style = Style.detect(
      isTerminal: terminals.stdout, noColorFlag: invocation.noColor, environment: environment)
    mode = RunMode(invocation, terminals: terminals)
    tracePath = invocation[CommandTable.traceOption]
    timeline = invocation[CommandTable.timelineOption]
    width = HelpRenderer.width(columns: environment["COLUMNS"])
    lints = LintPolicy(
      allowed: Set(invocation[CommandTable.allowOption].joined()),
      denied: Set(invocation[CommandTable.denyOption].joined()))
    recordPath = invocation[CommandTable.recordOption]
    readFiles = invocation.readFiles
    arguments = invocation.arguments
  }
}

/// A subcommand: its place in the command table, its options typed once, and its run.
package protocol Subcommand: SendableMetatype {
  /// Every option of the subcommand, parsed, checked against each other and defaulted.
  associatedtype Options: Sendable

  /// The subcommand's surface: options, help, examples.
  static var spec: CommandSpec { get }

  /// Types and checks the options; a problem is printed and thrown with its exit status.
  static func options(_ invocation: Invocation, _ run: RunOptions, environment: [String: String])
    throws(EarlyExit) -> Options

  /// Runs the flow and returns how the process must end.
  static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit) -> ProcessEnd
}
