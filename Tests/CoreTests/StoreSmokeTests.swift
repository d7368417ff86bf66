import Core
import Testing

private struct Counter: Equatable, Sendable {
  var count = 0
  var isLoading = false
}

private enum CounterAction: Equatable, Sendable {
  case increment, delayed, response, cancel
}

private func counterReducer(clock: TestClock, policy: EffectPolicy) -> Store<Counter, CounterAction>.Reducer {
  { state, action in
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .delayed:
      state.isLoading = true
      return .run { send in
        try await clock.sleep(for: .seconds(1))
        send(.response)
      }
      .cancellable(id: "delayed", policy: policy)
    case .response:
      state.isLoading = false
      state.count += 1
      return .none
    case .cancel:
      state.isLoading = false
      return .cancel(id: "delayed")
    }
  }
}

@Suite struct StoreSmokeTests {
  @Test func delayedIncrementArrivesAfterOneSecond() throws {
    let clock = TestClock()
    let store = TestStore(initialState: Counter(), clock: clock, reducer: counterReducer(clock: clock, policy: .drop))
    try store.send(.delayed) { $0.isLoading = true }
    clock.advance(by: .milliseconds(999))
    #expect(store.inFlight.count == 1)
    clock.advance(by: .milliseconds(1))
    try store.receive(.response) {
      $0.isLoading = false
      $0.count = 1
    }
    try store.finish()
  }

  @Test func cancelInSameTurnCancels() throws {
    let clock = TestClock()
    let store = TestStore(initialState: Counter(), clock: clock, reducer: counterReducer(clock: clock, policy: .latest))
    try store.send(.delayed) { $0.isLoading = true }
    try store.send(.cancel) { $0.isLoading = false }
    clock.run()
    try store.finish()
  }

  @Test func unassertedActionFails() throws {
    let clock = TestClock()
    let store = TestStore(initialState: Counter(), clock: clock, reducer: counterReducer(clock: clock, policy: .drop))
    try store.send(.delayed) { $0.isLoading = true }
    clock.advance(by: .seconds(1))
    #expect(throws: TestStoreFailure.self) { try store.finish() }
  }
}
