import LoadctlCore

/// One `loadctl timer` run, as ``FlowRunner`` runs it: the store, its keys and renderer, the
/// `--duration` deadline, and the tick numbers `end` reports.
///
/// The deadline ends the run as Ctrl-C does: the store applies `stop` (its cancel action), so it
/// needs no action of its own and leaves nothing running.
package struct TimerRun: RunnableFlow {
  let flow: TimerFlow
  /// `--paused`: no `start` before the input's first action.
  let paused: Bool
  /// `--duration`.
  let duration: Duration?

  /// When the run was suspended, and its time now: a tick that waited through a Ctrl-Z is not
  /// late.
  let suspensions: Suspensions
  let elapsed: @Sendable () -> Duration

  package init(
    flow: TimerFlow, paused: Bool, duration: Duration?, suspensions: Suspensions = Suspensions(),
    elapsed: @escaping @Sendable () -> Duration = { .zero }
  ) {
    self.flow = flow
    self.paused = paused
    self.duration = duration
    self.suspensions = suspensions
    self.elapsed = elapsed
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

    package mutating func record(_ tick: TimerAction.Tick) {
      received += 1
      // Saturating: a replayed tick says how many it missed, and a recording can say anything.
      let (sum, overflow) = missed.addingReportingOverflow(tick.missed)
      missed = overflow ? .max : sum
      finalLateness = tick.lateness
      maxLateness = max(maxLateness ?? tick.lateness, tick.lateness)
    }
  }

  /// Whether a run reads keys: when the terminal may be read (``RunMode/readsKeys``) and nothing
  /// else ends the run (no `--ticks`, no `--duration`), or `-i` asks for them.
  package static func wantsKeys(tickLimit: Int?, duration: Duration?, mode: RunMode) -> Bool {
    mode.readsKeys && (mode.interactive || (tickLimit == nil && duration == nil))
  }

  package var initialState: TimerState { TimerState() }

  package func reduce(_ state: inout TimerState, _ action: TimerAction) -> Effect<TimerAction> {
    flow.reduce(&state, action)
  }

  package var initialActions: [TimerAction] { paused ? [] : [.start] }
  package var cancelAction: TimerAction? { .stop }

  package var keys: KeyMap<TimerState, TimerAction>? {
    KeyMap(legend: "keys: space toggle · s start · p stop · r reset · q quit") { key in
      switch key {
      case .character(" "), .character("t"), .enter: .action(.toggle)
      case .character("s"): .action(.start)
      case .character("p"): .action(.stop)
      case .character("r"): .action(.reset)
      case .character("q"), .escape: .quit
      default: .ignore
      }
    }
  }

  /// `--duration`, and a grace: the timer starts a moment after the run, so its tick due at
  /// `duration` comes a fraction of a millisecond after it; the grace lets that tick land, so
  /// `--duration 3s` shows 00:03 rather than ending one tick short by a hair.
  package var deadline: Duration? {
    duration.map { $0 + min(flow.interval / 2, .milliseconds(10)) }
  }

  /// How late a tick may be before it raises `late`.
  package static let lateAfter: Duration = .milliseconds(200)

  /// How late `tick` ran after the first deadline it stands for: `interval` for each deadline it
  /// missed, and its own lateness; saturating at 2^63 ns, since a replayed tick's numbers come
  /// from a recording, which may hold any.
  package static func lateness(of tick: TimerAction.Tick, interval: Duration) -> Duration {
    let (product, overflow) = interval.nanoseconds.multipliedReportingOverflow(
      by: Int64(clamping: tick.missed))
    let (sum, overflowed) = product.addingReportingOverflow(tick.lateness.nanoseconds)
    return .nanoseconds(overflow || overflowed ? .max : sum)
  }

  /// `late`: a tick applied more than ``lateAfter`` after the first deadline it stands for (a
  /// tick that skipped missed deadlines is late by them too).
  package func lint(_ event: StoreEvent<TimerState, TimerAction>) -> LintWarning? {
    guard case .transition(.tick(let tick), _, _, _) = event else { return nil }
    let late = Self.lateness(of: tick, interval: flow.interval)
    // A tick that waited for a Ctrl-Z and `fg` waited for the person, not for a busy machine.
    guard late > Self.lateAfter, !suspensions.wereSuspended(within: late, now: elapsed()) else {
      return nil
    }
    return LintWarning(
      .late, subject: "timer",
      message:
        "a timer tick ran \(EventOutput.milliseconds(late)) ms late (more than \(formatDuration(Self.lateAfter))): "
        + suspensions.lateCause(
          within: late, now: elapsed(),
          busy: "the machine or the run is too busy for --interval \(formatDuration(flow.interval))"
        ))
  }

  package var initialTally: Stats { Stats() }

  package func count(_ event: StoreEvent<TimerState, TimerAction>, into stats: inout Stats) {
    if case .transition(.tick(let tick), _, _, _) = event { stats.record(tick) }
  }

  package func renderer(context: RunContext) -> StoreRenderer<TimerState, TimerAction> {
    makeRenderer(output: context.output)
  }

  package func end(
    _ outcome: FlowOutcome<Self>, renderer: StoreRenderer<TimerState, TimerAction>,
    output: EventOutput
  ) -> FlowEnd {
    let endedBy: EndedBy =
      switch outcome.reason {
      case .finished: .ticks
      case .idle: .input
      case .cancelled: outcome.deadlineReached ? .duration : .cancelled
      }
    return end(outcome.state, stats: outcome.tally, endedBy: endedBy)
  }

  private func makeRenderer(output: EventOutput) -> StoreRenderer<TimerState, TimerAction> {
    let style = output.style
    let dial = TimerDial(interval: flow.interval)
    let every = formatDuration(flow.interval)
    return StoreRenderer(
      output: output,
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

extension TimerAction: LineParsable {}
