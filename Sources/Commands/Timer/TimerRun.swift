import LoadctlCore

/// One `loadctl timer` run: the store, its renderer, the `--duration` deadline, and the tick
/// numbers `end` reports.
///
/// `--duration` is a sibling of the store's run in one task group: when its sleep on the run's
/// clock ends first, cancelling the group makes the store apply `stop` (its `onCancel`), exactly
/// like Ctrl-C, so the deadline needs no action of its own and leaves nothing running.
package struct TimerRun: Sendable {
  let flow: TimerFlow
  let context: RunContext

  package init(flow: TimerFlow, context: RunContext) {
    self.flow = flow
    self.context = context
  }

  /// What ended the run, for `end`'s `ended_by`.
  package enum EndedBy: String, Sendable {
    /// `ticks` reached `--ticks`.
    case ticks
    /// `--duration` elapsed.
    case duration
    /// The input ended with the timer stopped.
    case input
    /// A signal, `q` at the terminal, or a closed stdout stopped the run.
    case cancelled
  }

  /// The tick numbers of a run.
  package struct Stats: Sendable, Equatable {
    /// `tick` actions applied.
    package var received = 0
    /// Deadlines skipped because a tick was more than an interval late.
    package var missed = 0
    /// The last applied tick's lateness.
    package var finalLateness: Duration?
    /// The largest lateness of any applied tick.
    package var maxLateness: Duration?

    package init() {}

    mutating func record(_ tick: TimerAction.Tick) {
      received += 1
      missed += tick.missed
      finalLateness = tick.lateness
      maxLateness = max(maxLateness ?? tick.lateness, tick.lateness)
    }
  }

  /// Whether a run reads keys: when the terminal may be read (``RunMode/readsKeys``) and nothing
  /// else ends the run (no `--ticks`, no `--duration`), or `-i` asks for them.
  static func wantsKeys(tickLimit: Int?, duration: Duration?, mode: RunMode) -> Bool {
    mode.readsKeys && (mode.interactive || (tickLimit == nil && duration == nil))
  }

  /// What each child of the run's task group returns.
  private enum Outcome: Sendable {
    case store(StoreResult<TimerState>, Stats)
    case deadline
    case none
  }

  /// Runs until the tick limit, the deadline, the end of input with the timer stopped, or
  /// cancellation.
  ///
  /// Keys are read at a terminal when ``wantsKeys(tickLimit:duration:mode:)`` says so.
  package func run(paused: Bool, duration: Duration?, lines: RawLines?) async
    -> FlowEnd
  {
    let (result, stats, deadline) = await withTaskGroup(of: Outcome.self) { group in
      let keys = Self.wantsKeys(tickLimit: flow.tickLimit, duration: duration, mode: context.mode)
      group.addTask { await runStore(paused: paused, lines: lines, keys: keys) }
      if let duration {
        // The timer starts a moment after the run, so its tick due at `duration` comes a
        // fraction of a millisecond after it; the grace lets that tick land, so `--duration 3s`
        // shows 00:03 rather than ending one tick short by a hair.
        let grace = min(flow.interval / 2, .milliseconds(10))
        group.addTask { [clock = context.clock] in
          do {
            try await clock.sleep(for: duration + grace)
            return .deadline
          } catch {
            return .none
          }
        }
      }
      var stored: (StoreResult<TimerState>, Stats)?
      var deadline = false
      for await outcome in group {
        switch outcome {
        case .store(let result, let stats): stored = (result, stats)
        case .deadline: deadline = true
        case .none: break
        }
        group.cancelAll()
      }
      return (stored?.0, stored?.1 ?? Stats(), deadline)
    }
    let endedBy: EndedBy =
      switch result?.reason {
      case .finished: .ticks
      case .idle: .input
      case .cancelled, nil: deadline ? .duration : .cancelled
      }
    return end(result?.state ?? TimerState(), stats: stats, endedBy: endedBy)
  }

  private func runStore(paused: Bool, lines: RawLines?, keys: Bool) async -> Outcome {
    let store = Store(initialState: TimerState(), reducer: flow.reduce)
    let inputs = Prepended(paused ? [] : [.start], then: input(lines: lines, keys: keys))
    let renderer = makeRenderer()
    var stats = Stats()
    let result = await context.run(store, inputs: inputs, onCancel: .stop) { event in
      if case .transition(.tick(let tick), _, _, _) = event { stats.record(tick) }
      renderer.render(event)
    }
    return .store(result, stats)
  }

  /// Input lines; else keys at a terminal; else nothing (the timer runs until a limit or Ctrl-C).
  private func input(lines: RawLines?, keys: Bool) -> AnyInput<TimerAction>? {
    if let lines { return AnyInput(context.input(lines, parse: TimerAction.parse)) }
    guard keys else { return nil }
    let legend = "keys: space toggle · s start · p stop · r reset · q quit"
    let keys = context.terminal.keyActions(legend: legend) { key -> KeyResult<TimerAction> in
      switch key {
      case .character(" "), .character("t"), .enter: .action(.toggle)
      case .character("s"): .action(.start)
      case .character("p"): .action(.stop)
      case .character("r"): .action(.reset)
      case .character("q"), .escape: .quit
      default: .ignore
      }
    }
    return keys.map { AnyInput($0) }
  }

  private func makeRenderer() -> StoreRenderer<TimerState, TimerAction> {
    let style = context.output.style
    let dial = TimerDial(interval: flow.interval)
    let every = formatDuration(flow.interval)
    return StoreRenderer(
      output: context.output,
      transitionText: { action, from, to in
        let text = style.changes(to.changes(since: from))
        return "\(dial.render(to))  \(style.bold(action.name))  \(text)"
      },
      effectText: { info, phase in
        let label = "\(info.label)#\(info.serial)"
        switch phase {
        case .started: return "\(label) started (every \(every))"
        case .queued: return "\(label) waits for the old timer to end (latest policy)"
        case .finished: return nil
        case .dropped, .cancelled, .failed: return "\(label) \(phase.rawValue)"
        }
      })
  }

  private func end(_ state: TimerState, stats: Stats, endedBy: EndedBy) -> FlowEnd {
    let millis: (Duration?) -> JSONValue = {
      $0.map { .double(EventOutput.milliseconds($0)) } ?? .null
    }
    let fields: [(String, JSONValue)] = [
      ("state", state.snapshot),
      ("ended_by", .string(endedBy.rawValue)),
      ("ticks_received", .int(stats.received)),
      ("missed_ticks", .int(stats.missed)),
      ("final_lateness_ms", millis(stats.finalLateness)),
      ("max_lateness_ms", millis(stats.maxLateness)),
    ]
    let noun = state.ticks == 1 ? "tick" : "ticks"
    var summary = "\(TimerDial(interval: flow.interval).render(state))  \(state.ticks) \(noun)"
    // After a reset to zero, "0 ticks, final tick … late" would read as a contradiction.
    if let late = stats.finalLateness, state.ticks > 0 {
      summary += ", final tick \(EventOutput.milliseconds(late)) ms late"
    }
    return FlowEnd(status: .completed, fields: fields, summary: summary)
  }
}
