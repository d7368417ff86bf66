import LoadctlCore

/// The TCA effect example's `CounterFeature` as a pure reducer, with the SwiftUI `SaveButton` rule (disabled while saving) on top.
///
/// The delayed increment is an effect that runs the flow's `work` and then sends
/// `incrementResponse`, like TCA's `.run { send in … }`; the work is the example's sleep on the
/// injected clock, or a real command (``CounterWork``). When the work fails, the effect sends
/// `delayedIncrementFailed(message)` instead and the count stays. What a second delayed
/// increment does while one is pending is the effect id's ``EffectPolicy``. The reducer mirrors
/// that policy in `inFlight`, so that `isLoading` is true exactly while a response (or a
/// failure) is still to come:
///
/// | policy | second `delayedIncrement` while loading | `inFlight` | responses |
/// |---|---|---|---|
/// | `drop` | `ignored` (the disabled button) and `effect_dropped` | stays 1 | 1 |
/// | `latest` | cancels the pending one, restarts the work | stays 1 | 1 |
/// | `queue` | waits until the pending ones have landed | +1 | one per tap, one after another |
/// | `parallel` | runs beside the pending ones | +1 | one per tap |
package struct CounterFlow: Sendable {
  /// The delayed increment's work, given where to send what its command prints: it returns when
  /// the increment should land, throws `CancellationError` when cancelled, and throws anything
  /// else (a ``LoadFailure`` names why) to fail the increment.
  package let work: Work
  package typealias Work =
    @Sendable (_ show: @Sendable (ExternalCommand.Output) -> Void)
    async throws -> Void
  /// How text output names the work when its effect starts: `1s`, `$ make test`.
  package let workLabel: String
  /// The delayed increment's effect policy.
  package let policy: EffectPolicy
  /// Whether the screen is cleared as each delayed increment starts (`--clear`).
  package var clears = false

  package static let delayedID: EffectID = "delayed_increment"
  /// The delayed increment effect's name in events (the spinner spins while it runs).
  package static let effectName = "delayed_increment"

  /// The example's counter: the work sleeps `delay` on `clock`.
  package init(clock: any Clock<Duration>, delay: Duration, policy: EffectPolicy) {
    self.init(policy: policy, workLabel: formatDuration(delay)) { _ in
      try await clock.sleep(for: delay)
    }
  }

  /// A counter whose delayed increment runs `work`, e.g. ``CounterWork/operation(clock:)``.
  package init(
    policy: EffectPolicy, workLabel: String, work: @escaping Work
  ) {
    self.policy = policy
    self.workLabel = workLabel
    self.work = work
  }

  package func reduce(_ state: inout CounterState, _ action: CounterAction) -> Effect<CounterAction>
  {
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .decrement:
      state.count -= 1
      return .none
    case .delayedIncrement:
      return delayedIncrement(&state)
    case .incrementResponse:
      state.count += 1
      state.inFlight = max(0, state.inFlight - 1)
      return .none
    case .delayedIncrementFailed:
      state.inFlight = max(0, state.inFlight - 1)
      return .none
    case .output:
      return .none
    case .cancel, .interrupt:
      guard state.inFlight > 0 else {
        return action == .cancel ? .ignored("no delayed increment in flight") : .none
      }
      state.inFlight = 0
      return .cancel(id: Self.delayedID)
    }
  }

  private func delayedIncrement(_ state: inout CounterState) -> Effect<CounterAction> {
    switch policy {
    case .drop:
      // The disabled button: refused while loading. The effect still goes to the id so the
      // runtime's own `drop` is visible too (it always agrees: a pending response means a
      // running effect).
      if state.isLoading { return .merge(.ignored("already loading"), delayedEffect()) }
      state.inFlight = 1
      // An effect that already sent its response (or failure) is still running for a moment (it
      // has yet to return), and `drop` would refuse a new one then, leaving `isLoading` on for
      // good. The reducer knows that effect is done, so it releases the id first; when nothing
      // is unwinding this cancels nothing.
      return .merge(.cancel(id: Self.delayedID), delayedEffect())
    case .latest, .replace:
      state.inFlight = 1
    case .queue, .parallel:
      state.inFlight += 1
    }
    return delayedEffect()
  }

  private func delayedEffect() -> Effect<CounterAction> {
    .run(name: Self.effectName) { [work] send in
      try await work { send(.output($0)) }
      send(.incrementResponse)
    } catch: { error, send in
      send(.delayedIncrementFailed((error as? LoadFailure)?.message ?? "\(error)"))
    }
    .cancellable(id: Self.delayedID, policy: policy)
  }
}
