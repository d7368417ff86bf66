import Dispatch
import LoadctlCore
import LoadctlTestKit
import Testing

private struct Counter: Equatable, Sendable {
  var count = 0
  var isLoading = false
}

private struct Kaboom: Error {}

private enum Act: Sendable {
  case increment
  case delayed
  case response(Result<Int, any Error>)
  case twice
  case boom
  case boomCaught
  case failed
  case refuse
  case task
  case tick
}

private enum CancelID { case timer }

private func makeStore(
  clock: VirtualClock = VirtualClock(), exhaustivity: Exhaustivity = .on,
  sourceLocation: SourceLocation = #_sourceLocation
) -> TestStore<Counter, Act> {
  TestStore(
    initialState: Counter(), clock: clock, exhaustivity: exhaustivity,
    sourceLocation: sourceLocation
  ) { state, action in
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .delayed:
      state.isLoading = true
      return .run(name: "delay") { send in
        try await clock.sleep(for: .seconds(1))
        send(.response(.success(1)))
      }
    case .response(.success(let n)):
      state.isLoading = false
      state.count += n
      return .none
    case .response(.failure):
      state.isLoading = false
      return .none
    case .twice:
      return .merge(.send(.increment), .send(.increment))
    case .boom:
      return .run(name: "boom") { _ in throw Kaboom() }
    case .boomCaught:
      return .run(name: "boom") { _ in
        throw Kaboom()
      } catch: { _, send in
        send(.failed)
      }
    case .failed:
      return .none
    case .refuse:
      return .ignored("not now")
    case .task:
      return .run(name: "timer") { send in
        for await _ in ClockTimer(interval: .seconds(1), clock: clock) { send(.tick) }
      }
      .cancellable(id: CancelID.timer)
    case .tick:
      state.count += 1
      return .none
    }
  }
}

private func isResponse(_ action: Act) -> Bool {
  if case .response = action { true } else { false }
}

private func success(_ action: Act) -> Int? {
  if case .response(.success(let n)) = action { n } else { nil }
}

/// The issues `body` records (message and line), taken as known issues; the test fails when
/// `body` records none.
private func recorded(_ body: () -> Void) -> [(message: String, line: Int)] {
  let issues = Locked<[(message: String, line: Int)]>([])
  withKnownIssue {
    body()
  } matching: { issue in
    let message = issue.comments.map(\.rawValue).joined(separator: "\n")
    issues.withLock { $0.append((message, issue.sourceLocation?.line ?? 0)) }
    return true
  }
  return issues.withLock { $0 }
}

@Suite struct TestKitTests {
  @Test func passesWhenEveryChangeAndEveryReceivedActionIsAsserted() {
    let store = makeStore()
    store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .seconds(1))
    store.receive(isResponse) {
      $0.isLoading = false
      $0.count = 1
    }
    store.finish()
    #expect(store.state == Counter(count: 1))
  }

  @Test func aStateMismatchIsRecordedAtTheAssertionAsAFieldDiffAndTheTestGoesOn() {
    let store = makeStore()
    let issues = recorded {
      store.send(.increment) { $0.count = 2 }
      store.send(.increment) { $0.count = 3 }
    }
    #expect(issues.map(\.line) == [#line - 3, #line - 2])
    #expect(
      issues.first?.message == """
        state after send(increment) differs (− expected, + actual):
          − count: 2
          + count: 1
        """)
    #expect(store.state.count == 2)
  }

  @Test func aStoreThatGoesAwayWithAnEffectInFlightFailsAtTheSendThatStartedIt() {
    let issues = recorded {
      let store = makeStore()
      store.send(.delayed) { $0.isLoading = true }
    }
    #expect(issues.map(\.line) == [#line - 2])
    #expect(issues.first?.message.hasPrefix("effect delay started here is still in flight") == true)
  }

  @Test func aStoreThatGoesAwayWithAnUnreceivedActionFailsWhereItWasMade() {
    let line = #line + 2
    let issues = recorded {
      let store = makeStore()
      store.send(.delayed) { $0.isLoading = true }
      store.clock.advance(by: .seconds(1))
    }
    #expect(issues.map(\.line) == [line])
    #expect(issues.first?.message.hasPrefix("1 received action(s) not asserted:") == true)
  }

  @Test func finishFailsAtItsLineAndTheStoreGoingAwayAddsNothing() {
    let issues = recorded {
      let store = makeStore()
      store.send(.twice)
      store.finish()
    }
    #expect(issues.map(\.line) == [#line - 2])
    #expect(issues.first?.message.hasPrefix("2 received action(s) not asserted") == true)
  }

  @Test func anErrorNoCatchHandlesIsAFailureAtTheSendThatStartedTheEffect() {
    let store = makeStore()
    let issues = recorded { store.send(.boom) }
    #expect(issues.map(\.line) == [#line - 1])
    #expect(issues.first?.message.hasPrefix("effect boom threw Kaboom(), which no catch:") == true)
    store.send(.boomCaught)
    store.receive({ if case .failed = $0 { true } else { false } })
  }

  @Test func exhaustivityOffChecksOnlyWhatTheTestAsserts() {
    let store = makeStore(exhaustivity: .off)
    store.send(.twice)
    store.send(.delayed) { $0.count = 2 }
    store.clock.advance(by: .seconds(1))
    store.receive(isResponse) { $0.count = 3 }
    store.send(.delayed)
    let issues = recorded { store.send(.increment) { $0.count = 9 } }
    #expect(issues.map(\.line) == [#line - 1])
    #expect(issues.first?.message.hasSuffix("− count: 9\n  + count: 4") == true)
  }

  @Test func exhaustivityOffSkipsReceivedActionsUpToTheOneAsserted() {
    let store = makeStore(exhaustivity: .off)
    store.send(.twice)
    store.receive({ _ in true }) { $0.count = 1 }
    store.exhaustivity = .on
    store.receive({ _ in true }) { $0.count = 2 }
    store.finish()
  }

  @Test func sendReturnsATaskThatCancelsALongLivingEffect() {
    let store = makeStore()
    let task = store.send(.task)
    store.clock.advance(by: .seconds(2))
    store.receive({ if case .tick = $0 { true } else { false } }) { $0.count = 1 }
    store.receive({ if case .tick = $0 { true } else { false } }) { $0.count = 2 }
    #expect(task.isInFlight)
    let issues = recorded { task.finish() }
    #expect(issues.map(\.line) == [#line - 1])
    #expect(
      issues.first?.message
        == "the effects of send(task) are still in flight: timer; advance the clock")
    task.cancel()
    #expect(!task.isInFlight)
    task.finish()
    store.finish()
  }

  @Test func aTaskCancelsAnEffectStillQueuedSoItNeverRuns() {
    let clock = VirtualClock()
    let store = TestStore(initialState: 0, clock: clock) { (state: inout Int, action: Int) in
      state += action
      guard action == 0 else { return .none }
      return .run(name: "load") { send in
        try await clock.sleep(for: .seconds(1))
        send(1)
      }
      .cancellable(id: "load", policy: .queue)
    }
    store.send(0)
    let second = store.send(0)
    #expect(second.isInFlight)
    second.cancel()
    clock.advance(by: .seconds(1))
    store.receive(1) { $0 = 1 }
    clock.advance(by: .seconds(1))
    #expect(!second.isInFlight)
    store.finish()
  }

  /// A fake that answers from another thread, as one sleeping on a real clock does: with a
  /// timeout, `receive` waits for its answer in real time.
  @Test func receiveWithATimeoutWaitsForWorkOutsideTheClock() {
    let gate = DispatchSemaphore(value: 0)
    let store = TestStore(initialState: 0) { (state: inout Int, action: Int) in
      state = action
      guard action == 1 else { return .none }
      return .run { send in
        await withCheckedContinuation { continuation in
          DispatchQueue.global().async {
            gate.wait()
            continuation.resume()
          }
        }
        send(2)
      }
    }
    store.send(1) { $0 = 1 }
    gate.signal()
    store.receive(2, timeout: .seconds(60)) { $0 = 2 }
    store.finish()
  }

  @Test func receiveByCaseAndPayloadAndTheFailureOfADifferentAction() {
    let store = makeStore()
    store.send(.delayed) { $0.isLoading = true }
    store.clock.advance(by: .seconds(1))
    store.receive(success, 1) {
      $0.isLoading = false
      $0.count = 1
    }
    store.send(.twice)
    let issues = recorded { store.receive(isResponse) }
    #expect(issues.map(\.line) == [#line - 1])
    #expect(
      issues.first?.message == "expected to receive an action that matches; received increment")
    store.receive({ _ in true }) { $0.count = 3 }
    store.finish()
  }

  @Test func sendIgnoredAssertsTheReason() {
    let store = makeStore()
    store.sendIgnored(.refuse, reason: "not now")
    let issues = recorded { store.send(.refuse) }
    #expect(issues.first?.message == "refuse was ignored (not now); assert that with sendIgnored")
    store.finish()
  }

  @Test func anImmediateClockLetsAnEffectRespondWithoutMovingTime() {
    let immediate = ImmediateClock()
    let store = TestStore(initialState: 0) { (state: inout Int, action: Int) in
      state = action
      guard action == 1 else { return .none }
      return .run { send in
        try await immediate.sleep(for: .seconds(5))
        send(2)
      }
    }
    store.send(1) { $0 = 1 }
    store.receive(2, timeout: .seconds(60)) { $0 = 2 }
    store.finish()
    #expect(immediate.now.offset == .seconds(5))
  }
}
