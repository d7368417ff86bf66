import LoadctlCore

/// TCA's `Timers` example reducer: a timer effect on the injected clock, one id, `latest` policy.
///
/// Turning the timer on returns a ticking effect registered under ``timerID`` with `latest` (the
/// TCA's `cancelInFlight: true`); turning it off cancels the id. `latest` in Core waits until the
/// old effect has ended before the new one starts, so a quick off–on never leaves two timers
/// ticking, not even for a moment. Ticks come from Core's drift-free `ClockTimer`: each sleeps
/// until `start + n × interval`, so lateness does not add up over a long run.
package struct TimerFlow: Sendable {
  package let clock: any Clock<Duration>
  /// The time between ticks (the example's one second).
  package let interval: Duration
  /// End the run when `ticks` reaches this (`--ticks`).
  package let tickLimit: Int?

  package static let timerID: EffectID = "timer"

  package init(clock: any Clock<Duration>, interval: Duration, tickLimit: Int? = nil) {
    precondition(interval > .zero, "a timer needs a positive interval")
    self.clock = clock
    self.interval = interval
    self.tickLimit = tickLimit
  }

  package func reduce(_ state: inout TimerState, _ action: TimerAction) -> Effect<TimerAction> {
    switch action {
    case .toggle:
      state.isTimerActive.toggle()
      return state.isTimerActive ? timerEffect() : .cancel(id: Self.timerID)
    case .start:
      guard !state.isTimerActive else { return .ignored("timer already running") }
      state.isTimerActive = true
      return timerEffect()
    case .stop:
      guard state.isTimerActive else { return .ignored("timer not running") }
      state.isTimerActive = false
      return .cancel(id: Self.timerID)
    case .reset:
      state.ticks = 0
      return .none
    case .tick(let tick):
      // Saturating: a replayed recording may hold any count a tick could have skipped.
      let (ticks, overflow) = state.ticks.addingReportingOverflow(1 &+ tick.missed)
      state.ticks = overflow ? .max : ticks
      guard let tickLimit, state.ticks >= tickLimit else { return .none }
      // Skipped deadlines can jump past the limit; the run ends at the limit's deadline.
      state.ticks = tickLimit
      state.isTimerActive = false
      return .merge(.cancel(id: Self.timerID), .finishRun)
    }
  }

  private func timerEffect() -> Effect<TimerAction> {
    .run(name: "timer") { [clock, interval] send in
      // A plain local, because Swift 6.3 does not open an existential from a capture list.
      let clock: any Clock<Duration> = clock
      await Self.tick(on: clock, every: interval, send: send)
    }
    .cancellable(id: Self.timerID, policy: .latest)
  }

  /// Sends a `tick` at each deadline until cancelled; generic so `ClockTimer` sees the concrete
  /// clock behind the existential.
  private static func tick<C: Clock>(
    on clock: C, every interval: Duration, send: Send<TimerAction>
  ) async where C.Duration == Duration {
    var last = 0
    for await tick in ClockTimer(interval: interval, clock: clock) {
      send(.tick(TimerAction.Tick(missed: tick.index - last - 1, lateness: tick.lateness)))
      last = tick.index
    }
  }
}
