import LoadctlCore
import Testing

private struct Counter: Equatable, Sendable {
  var count = 0
  var isLoading = false
}

private enum Act: Equatable, Sendable {
  case increment
  case delayed
  case response
  case twice
  case refuse
}

private func makeStore() -> TestStore<Counter, Act> {
  let clock = VirtualClock()
  return TestStore(initialState: Counter(), clock: clock) { state, action in
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .delayed:
      state.isLoading = true
      return .run(name: "delay") { send in
        try await clock.sleep(for: .seconds(1))
        send(.response)
      }
    case .response:
      state.isLoading = false
      state.count += 1
      return .none
    case .twice:
      return .merge(.send(.increment), .send(.increment))
    case .refuse:
      return .ignored("not now")
    }
  }
}

/// The message of the `TestStoreFailure` that `body` throws, or a note that it threw none.
private func failure(_ body: () throws -> Void) -> String {
  do {
    try body()
    return "no failure"
  } catch let failure as TestStoreFailure {
    return failure.message
  } catch {
    return "unexpected error \(error)"
  }
}

@Suite struct TestStoreTests {
  @Test func passesWhenEveryChangeAndEveryReceivedActionIsAsserted() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .milliseconds(999))
    #expect(store.inFlight.map(\.label) == ["delay"])
    store.clock.advance(by: .milliseconds(1))
    try store.receive(.response) {
      $0.isLoading = false
      $0.count = 1
    }
    try store.finish()
    #expect(store.state == Counter(count: 1))
    #expect(store.effectEvents.compactMap(effectLine) == ["start #1", "end #1 finished"])
  }

  @Test func aWrongExpectedStateThrowsWithTheCallersLocation() throws {
    let store = makeStore()
    var thrown: TestStoreFailure?
    do {
      try store.send(.increment) { $0.count = 2 }
    } catch let failure as TestStoreFailure {
      thrown = failure
    }
    let line = #line - 4
    #expect(thrown?.line == line)
    #expect(thrown?.file == "LoadctlCommandsTests/TestStoreTests.swift")
    #expect(
      thrown?.message == """
        state after increment differs:
          expected: Counter(count: 2, isLoading: false)
            actual: Counter(count: 1, isLoading: false)
        """)
    #expect(store.state == Counter(count: 1))
  }

  @Test func aMissingStateChangeThrows() {
    let store = makeStore()
    #expect(failure { try store.send(.increment) }.hasPrefix("state after increment differs"))
  }

  @Test func anUnassertedReceivedActionMakesFinishThrow() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .seconds(1))
    #expect(failure { try store.finish() }.hasPrefix("1 action(s) received but not asserted"))
  }

  @Test func anEffectStillInFlightMakesFinishThrow() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    #expect(failure { try store.finish() } == "effect(s) still in flight at the end: [\"delay\"]")
  }

  @Test func sendingWhileActionsAreUnreceivedThrows() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .seconds(1))
    #expect(
      failure { try store.send(.increment) } == "must receive 1 action(s) before sending increment")
    try store.receive(.response) {
      $0.isLoading = false
      $0.count = 1
    }
    try store.finish()
  }

  @Test func sendingAnIgnoredActionWhileActionsAreUnreceivedThrows() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .seconds(1))
    #expect(
      failure { try store.sendIgnored(.refuse, reason: "not now") }
        == "must receive 1 action(s) before sending refuse")
    try store.receive(.response) {
      $0.isLoading = false
      $0.count = 1
    }
    try store.finish()
  }

  @Test func receiveWhenNothingWasReceivedThrows() throws {
    let store = makeStore()
    try store.send(.delayed) { $0.isLoading = true }
    #expect(
      failure { try store.receive(.response) }
        == "expected to receive response; no action was applied")
  }

  @Test func receivingADifferentActionThrows() throws {
    let store = makeStore()
    try store.send(.twice)
    #expect(
      failure { try store.receive(.response) } == "expected to receive response; got increment")
  }

  @Test func actionsSentWithEffectSendAreReceivedInOrder() throws {
    let store = makeStore()
    try store.send(.twice)
    try store.receive(.increment) { $0.count = 1 }
    try store.receive(.increment) { $0.count = 2 }
    try store.finish()
  }

  @Test func sendIgnoredAssertsTheReason() throws {
    let store = makeStore()
    try store.sendIgnored(.refuse, reason: "not now")
    #expect(
      failure { try store.sendIgnored(.refuse, reason: "busy") }
        .hasPrefix("expected to send refuse, ignored (busy); got ignored("))
    #expect(failure { try store.send(.refuse) }.hasPrefix("expected to send refuse; got ignored("))
    try store.finish()
  }

  @Test func sendIgnoredOfAnAppliedActionThrows() {
    let store = makeStore()
    #expect(
      failure { try store.sendIgnored(.increment, reason: "not now") }
        .hasPrefix("expected to send increment, ignored (not now); got transition("))
  }
}
