import LoadctlCore

/// `loadctl timer`: TCA's `Timers` example, started at once, stopped by a tick limit, a duration,
/// input lines or Ctrl-C.
package enum TimerCommand: Subcommand {
  /// `timer`'s options, each declared once: the table lists them, `options(_:_:environment:)`
  /// reads them.
  enum Option {
    static let interval = OptionKey.value(
      "interval", .positiveDuration, help: "Time between ticks.", default: "1s")
    static let ticks = OptionKey.value(
      "ticks", .positiveInt, help: "End when the tick count reaches N.")
    static let duration = OptionKey.value(
      "duration", .positiveDuration, help: "End after DURATION, running or not.")
    static let paused = OptionKey.flag(
      "paused", help: "Start stopped, for --input or keys to start.")
    static let input = OptionKey.value(
      "input", .file, help: "Read actions (toggle, start, stop, reset) from FILE, or - for stdin.")
  }

  package static let spec = CommandSpec(
    name: "timer",
    summary: "A drift-free timer effect: toggle, tick, stop, reset; one timer id, latest policy.",
    discussion: """
      Starts the timer (unless --paused) and prints every tick with the elapsed time and a \
      60-step dial. Ends after --ticks ticks or --duration, when the input has ended and the \
      timer is stopped, or on Ctrl-C, which stops the timer and prints the last state. Input \
      lines: toggle (t), start (s), stop (p), reset (r), each optionally prefixed with \
      +DURATION (wait after the previous line) or @DURATION (from the start); at a terminal \
      without --input, the keys space (toggle), s, p, r and q (quit). Turning the timer on again \
      waits until the old timer effect has ended: never two timers ticking.
      """,
    options: [Option.interval, Option.ticks, Option.duration, Option.paused, Option.input],
    examples: [
      "loadctl timer --ticks 5",
      "loadctl timer --interval 10ms --ticks 1000 --quiet",
      "printf '+3s toggle\\n+1s toggle\\n+2s stop\\n' | loadctl timer --input -",
      "loadctl timer --interval 100ms --duration 2s --json | jq -c 'select(.event == \"end\")'",
    ])

  /// `timer`'s options, typed and checked once.
  package struct Options: Sendable {
    /// `--interval`.
    let interval: Duration
    /// `--ticks`.
    let tickLimit: Int?
    /// `--duration`.
    let duration: Duration?
    /// `--paused`.
    let paused: Bool
    /// `--input`.
    let input: String?

    /// The settings the `start` event echoes.
    var startFields: [(String, JSONValue)] {
      [
        ("interval_ms", .double(EventOutput.exactMilliseconds(interval))),
        ("ticks", tickLimit.map(JSONValue.int) ?? .null),
        ("duration_ms", duration.map { .double(EventOutput.milliseconds($0)) } ?? .null),
        ("paused", .bool(paused)),
        ("input", input.map(JSONValue.string) ?? .null),
      ]
    }
  }

  package static func options(
    _ invocation: Invocation, _ run: RunOptions, environment: [String: String]
  ) throws(EarlyExit) -> Options {
    let options = Options(
      interval: invocation[Option.interval], tickLimit: invocation[Option.ticks],
      duration: invocation[Option.duration], paused: invocation[Option.paused],
      input: invocation[Option.input])
    if let problem = problem(options, mode: run.mode) {
      throw Loadctl.fail(usage: .invalidValue(problem, command: spec.name), json: run.json)
    }
    return options
  }

  package static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit)
    -> ProcessEnd
  {
    let inputFD = try Loadctl.openInput(options.input, for: run)
    return try await CommandRuntime.run(run, options: options.startFields) { context in
      let flow = TimerFlow(
        clock: context.clock, interval: options.interval, tickLimit: options.tickLimit)
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) }
      let timer = TimerRun(
        flow: flow, paused: options.paused, duration: options.duration,
        suspensions: context.suspensions, elapsed: context.elapsed)
      let keys = TimerRun.wantsKeys(
        tickLimit: options.tickLimit, duration: options.duration, mode: context.mode)
      return await FlowRunner.run(
        timer, lines: lines, keys: keys ? .unlessLines : .never, context: context)
    }
  }

  /// What the parser cannot check alone: `--paused` without `--input`, and a virtual-time timer
  /// with no end.
  static func problem(_ options: Options, mode: RunMode) -> String? {
    // Keys can start a paused timer only when the run reads them (see `TimerRun.wantsKeys`).
    let keys = TimerRun.wantsKeys(
      tickLimit: options.tickLimit, duration: options.duration, mode: mode)
    if options.paused, options.input == nil, !keys {
      return "'--paused' needs '--input' or a terminal: nothing else could start the timer"
    }
    // On virtual time nothing waits: a timer with no end would tick as fast as the machine goes,
    // for ever. (A replay ends where its recording does.)
    if mode.isVirtual, !mode.isReplay, options.tickLimit == nil, options.duration == nil,
      options.input == nil
    {
      return "'--clock virtual' needs '--ticks', '--duration' or '--input': nothing else would "
        + "end the timer, and virtual time does not wait"
    }
    return nil
  }
}
