import Commands
import Core
import Testing

private func makeStore(_ policy: EffectPolicy) -> TestStore<CounterState, CounterAction> {
  let clock = TestClock()
  let flow = CounterFlow(clock: clock, delay: .seconds(1), policy: policy)
  return TestStore(initialState: CounterState(), clock: clock, reducer: flow.reduce)
}

private func effects(_ store: TestStore<CounterState, CounterAction>) -> [String] {
  store.effectEvents.map { event in
    switch event {
    case .effectStarted(let info): "start #\(info.serial)"
    case .effectQueued(let info): "queue #\(info.serial)"
    case .effectDropped(let info): "drop #\(info.serial)"
    case .effectFinished(let info, let outcome): "end #\(info.serial) \(outcome.name)"
    case .transition, .ignored: "unexpected \(event)"
    }
  }
}

/// A second delayed increment half a second into the first one's one-second delay, under each
/// policy: the counts and timings `docs/counter.md` documents.
@Suite struct CounterPolicyTests {
  @Test func dropIgnoresTheSecondTapLikeADisabledButton() throws {
    let store = makeStore(.drop)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .milliseconds(500))
    try store.sendIgnored(.delayedIncrement, reason: "already loading")
    store.clock.advance(by: .milliseconds(500))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    store.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(effects(store) == ["start #1", "drop #2", "end #1 finished"])
  }

  @Test func dropAcceptsAgainOnceTheResponseLanded() throws {
    let store = makeStore(.drop)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 2
      $0.inFlight = 0
    }
    try store.finish()
    #expect(effects(store) == ["start #1", "end #1 finished", "start #2", "end #2 finished"])
  }

  @Test func latestCancelsThePendingOneAndRestartsTheDelay() throws {
    let store = makeStore(.latest)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .milliseconds(500))
    try store.send(.delayedIncrement)
    #expect(effects(store) == ["start #1", "queue #2", "end #1 cancelled", "start #2"])
    store.clock.advance(by: .milliseconds(999))
    try expectNothingReceived(store)
    store.clock.advance(by: .milliseconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    try store.finish()
    #expect(store.clock.now.offset == .milliseconds(1500))
  }

  @Test func queueRunsTheSecondAfterTheFirstHasLanded() throws {
    let store = makeStore(.queue)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .milliseconds(500))
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    store.clock.advance(by: .milliseconds(500))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 1
    }
    #expect(store.state.isLoading)
    store.clock.advance(by: .milliseconds(999))
    try expectNothingReceived(store)
    store.clock.advance(by: .milliseconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 2
      $0.inFlight = 0
    }
    try store.finish()
    #expect(
      effects(store) == ["start #1", "queue #2", "end #1 finished", "start #2", "end #2 finished"])
  }

  @Test func parallelRunsBothAndLoadsUntilTheLastLands() throws {
    let store = makeStore(.parallel)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .milliseconds(500))
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    store.clock.advance(by: .milliseconds(500))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 1
    }
    #expect(store.state.isLoading)
    store.clock.advance(by: .milliseconds(500))
    try store.receive(.incrementResponse) {
      $0.count = 2
      $0.inFlight = 0
    }
    try store.finish()
    #expect(
      effects(store) == ["start #1", "start #2", "end #1 finished", "end #2 finished"])
  }
}

/// Fails unless no action has arrived since the last assertion (the response is not in yet).
private func expectNothingReceived(_ store: TestStore<CounterState, CounterAction>) throws {
  #expect(throws: TestStoreFailure.self) { try store.receive(.incrementResponse) }
  #expect(store.state.isLoading)
}
