import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `loadctl timer`: TCA's `Timers` example, started at once, stopped by a tick limit, a duration,
/// input lines or Ctrl-C.
package enum TimerCommand {
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
    options: [
      .value("interval", .duration, help: "Time between ticks.", default: "1s"),
      .value("ticks", .positiveInt, help: "End when the tick count reaches N."),
      .value("duration", .duration, help: "End after DURATION, running or not."),
      .flag("paused", help: "Start stopped, for --input or keys to start."),
      .value(
        "input", .file, help: "Read actions (toggle, start, stop, reset) from FILE, or - for stdin."
      ),
    ],
    examples: [
      "loadctl timer --ticks 5",
      "loadctl timer --interval 10ms --ticks 1000 --quiet",
      "printf '+3s toggle\\n+1s toggle\\n+2s stop\\n' | loadctl timer --input -",
      "loadctl timer --interval 100ms --duration 2s --json | jq -c 'select(.event == \"end\")'",
    ])

  package static func run(_ invocation: Invocation, environment: [String: String])
    async throws(EarlyExit) -> ProcessEnd
  {
    let interval = invocation.defaultedDuration("interval")
    let tickLimit = invocation.int("ticks")
    let duration = invocation.duration("duration")
    let paused = invocation.flag("paused")
    let input = invocation.string("input")
    if let problem = problem(invocation) {
      throw Loadctl.fail(usage: .invalidValue(problem, command: spec.name), json: invocation.json)
    }
    let inputFD = try Loadctl.openInput(input, for: invocation)
    let options: [(String, JSONValue)] = [
      ("interval_ms", .double(EventOutput.milliseconds(interval))),
      ("ticks", tickLimit.map(JSONValue.int) ?? .null),
      ("duration_ms", duration.map { .double(EventOutput.milliseconds($0)) } ?? .null),
      ("paused", .bool(paused)),
      ("input", input.map(JSONValue.string) ?? .null),
    ]
    return try await CommandRuntime.run(invocation, options: options, environment: environment) {
      context in
      let flow = TimerFlow(clock: context.clock, interval: interval, tickLimit: tickLimit)
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) }
      return await TimerRun(flow: flow, context: context).run(
        paused: paused, duration: duration, lines: lines,
        interactive: invocation.flag("interactive"))
    }
  }

  /// What the parser cannot check alone: zero durations, and `--paused` without `--input`.
  static func problem(_ invocation: Invocation) -> String? {
    for name in ["interval", "duration"] {
      guard let value = invocation.duration(name), value <= .zero else { continue }
      let text = invocation.string(name) ?? "0"
      return "invalid value '\(text)' for '--\(name)' (must be more than 0)"
    }
    // Keys can start a paused timer only at a terminal on real time (see TerminalSession), and
    // only when the run reads them (see `TimerRun.run`).
    let wantsKeys =
      invocation.flag("interactive")
      || (invocation.int("ticks") == nil && invocation.duration("duration") == nil)
    let keys =
      isatty(0) == 1 && invocation.string("clock") != "virtual" && !invocation.flag("no-input")
      && wantsKeys
    if invocation.flag("paused"), invocation.string("input") == nil, !keys {
      return "'--paused' needs '--input' or a terminal: nothing else could start the timer"
    }
    return nil
  }
}
