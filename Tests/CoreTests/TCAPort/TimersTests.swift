import LoadctlCore
import LoadctlTestKit
import Testing

/// TCA's Timers case study: a toggle that starts and stops a one-second timer on an injected
/// clock (`clock.timer`, here `ClockTimer` on an `any Clock<Duration>`).
private struct Timers: Sendable {
  struct State: Equatable, Sendable {
    var isTimerActive = false
    var secondsElapsed = 0
  }

  enum Action: Sendable {
    case onDisappear
    case timerTicked
    case toggleTimerButtonTapped
  }

  private enum CancelID { case timer }

  let clock: any Clock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .onDisappear:
      return .cancel(id: CancelID.timer)
    case .timerTicked:
      state.secondsElapsed += 1
      return .none
    case .toggleTimerButtonTapped:
      state.isTimerActive.toggle()
      return .run { [isTimerActive = state.isTimerActive, clock] send in
        guard isTimerActive else { return }
        for await _ in ClockTimer(interval: .seconds(1), clock: clock) {
          send(.timerTicked)
        }
      }
      .cancellable(id: CancelID.timer, policy: .replace)
    }
  }
}

private func isTick(_ action: Timers.Action) -> Bool {
  if case .timerTicked = action { true } else { false }
}

@Suite struct TimersTests {
  @Test func start() {
    let clock = VirtualClock()
    let store = TestStore(initialState: Timers.State(), clock: clock) {
      Timers(clock: clock).reduce(into: &$0, action: $1)
    }
    store.send(.toggleTimerButtonTapped) { $0.isTimerActive = true }
    clock.advance(by: .seconds(1))
    store.receive(isTick) { $0.secondsElapsed = 1 }
    clock.advance(by: .seconds(5))
    store.receive(isTick) { $0.secondsElapsed = 2 }
    store.receive(isTick) { $0.secondsElapsed = 3 }
    store.receive(isTick) { $0.secondsElapsed = 4 }
    store.receive(isTick) { $0.secondsElapsed = 5 }
    store.receive(isTick) { $0.secondsElapsed = 6 }
    store.send(.toggleTimerButtonTapped) { $0.isTimerActive = false }
  }
}
