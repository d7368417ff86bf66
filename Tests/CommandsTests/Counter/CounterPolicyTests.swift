import LoadctlCommands
import LoadctlCore
import Testing

/// A second delayed increment half a second into the first one's one-second delay, under each
/// policy: the counts and timings `docs/counter.md` documents.
@Suite struct CounterPolicyTests {
  @Test func dropIgnoresTheSecondTapLikeADisabledButton() throws {
    let store = makeCounterStore(.drop)
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
    #expect(counterEffects(store) == ["start #1", "drop #2", "end #1 finished"])
  }

  @Test func dropAcceptsAgainOnceTheResponseLanded() throws {
    let store = makeCounterStore(.drop)
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
    #expect(
      counterEffects(store) == ["start #1", "end #1 finished", "start #2", "end #2 finished"])
  }

  @Test func latestCancelsThePendingOneAndRestartsTheDelay() throws {
    let store = makeCounterStore(.latest)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    store.clock.advance(by: .milliseconds(500))
    try store.send(.delayedIncrement)
    #expect(counterEffects(store) == ["start #1", "queue #2", "end #1 cancelled", "start #2"])
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
    let store = makeCounterStore(.queue)
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
      counterEffects(store) == [
        "start #1", "queue #2", "end #1 finished", "start #2", "end #2 finished",
      ])
  }

  @Test func parallelRunsBothAndLoadsUntilTheLastLands() throws {
    let store = makeCounterStore(.parallel)
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
      counterEffects(store) == ["start #1", "start #2", "end #1 finished", "end #2 finished"])
  }
}

/// Fails unless no action has arrived since the last assertion (the response is not in yet).
private func expectNothingReceived(_ store: TestStore<CounterState, CounterAction>) throws {
  #expect(throws: TestStoreFailure.self) { try store.receive(.incrementResponse) }
  #expect(store.state.isLoading)
}
