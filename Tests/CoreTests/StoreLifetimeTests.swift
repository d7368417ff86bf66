import LoadctlCore
import Synchronization
import Testing

private enum Act: Equatable, Sendable {
  case start(String)
  case got(String)
  case shutdown
  case cancelAndFinish
  case input(Int)
  case echo(Int)
}

private struct Flow: Equatable, Sendable {
  var phase = "running"
  var got: [String] = []
  var applied: [Act] = []
}

/// Effects that each try, in their own way, to send after they were cancelled.
private func flow(clock: VirtualClock) -> Store<Flow, Act>.Reducer {
  { state, action in
    switch action {
    case .start("sleeper"):
      return .run(name: "sleeper") { send in
        do {
          try await clock.sleep(for: .seconds(10))
        } catch {
          send(.got("sleeper after cancel"))
        }
      }
    case .start("handler"):
      return .run(name: "handler") { send in
        await withTaskCancellationHandler {
          try? await clock.sleep(for: .seconds(10))
        } onCancel: {
          send(.got("from cancellation handler"))
        }
        send(.got("handler after cancel"))
      }
    case .start("looper"):
      return .run(name: "looper") { send in
        for _ in 0..<3 {
          try? await clock.sleep(for: .seconds(1))
          send(.got("loop"))
        }
      }
    case .start(let name):
      return .run(name: name) { _ in try await clock.sleep(for: .seconds(10)) }
        .cancellable(id: "queue", policy: .queue)
    case .got(let text):
      state.got.append(text)
      return .none
    case .shutdown:
      state.phase = "stopped"
      return .run(name: "after shutdown") { send in send(.got("after shutdown")) }
    case .cancelAndFinish:
      return .merge(.cancel(id: "queue"), .finishRun)
    case .input(let n):
      state.applied.append(action)
      return n == 0 ? echo(count: 20) : .none
    case .echo:
      state.applied.append(action)
      return .none
    }
  }
}

private func echo(count: Int) -> Effect<Act> {
  .run(name: "echo") { send in
    for n in 1...count {
      send(.echo(n))
      await withTaskGroup(of: Void.self) { group in group.addTask {} }
    }
  }
}

private func makeHarness(stopWhenIdle: Bool = false) -> StoreHarness<Flow, Act> {
  let clock = VirtualClock()
  return StoreHarness(
    initialState: Flow(), clock: clock, stopWhenIdle: stopWhenIdle, onCancel: .shutdown,
    reducer: flow(clock: clock))
}

@Suite struct StoreLifetimeTests {
  @Test func cancellingTheRunCancelsEveryEffectAndAppliesOnCancelLast() {
    let harness = makeHarness()
    for name in ["sleeper", "handler", "looper", "first", "second"] {
      harness.send(.start(name))
    }
    #expect(harness.clock.pendingSleepCount == 4)
    _ = harness.take()

    harness.cancel()

    #expect(harness.result?.reason == .cancelled)
    #expect(
      harness.take() == [
        "apply shutdown",
        "end sleeper#1 cancelled", "end handler#2 cancelled", "end looper#3 cancelled",
        "end first#4 cancelled", "end second#5 cancelled",
      ])
    #expect(harness.result?.state == Flow(phase: "stopped"))
    #expect(harness.clock.pendingSleepCount == 0)
  }

  @Test func nothingIsDeliveredAfterRunReturns() async throws {
    let harness = makeHarness()
    for name in ["sleeper", "handler", "looper", "first", "second"] {
      harness.send(.start(name))
    }
    harness.cancel()
    // Checked first: awaiting a run that has not returned would never return.
    try #require(harness.result != nil)
    let result = await harness.task.value
    #expect(result.reason == .cancelled)
    let linesAtReturn = harness.trace.values.count

    harness.clock.run()
    harness.clock.advance(by: .seconds(60))
    harness.send(.got("input after return"))

    #expect(harness.eventsAfterReturn == [])
    #expect(harness.trace.values.count == linesAtReturn)
    #expect(harness.state.got == [])
  }

  /// Once the run is cancelled only `onCancel` is applied, even if actions are still buffered.
  ///
  /// From another thread, cancellation can arrive while the loop is busy; an effect's
  /// cancellation handler then runs on that thread, where `Send` sees no cancelled task, and
  /// its action lands in the mailbox behind the cancellation. Here an effect queues an action
  /// and cancels the run in the same step, which leaves the mailbox in that state.
  @Test func actionsStillInTheMailboxWhenTheRunIsCancelledAreNotApplied() {
    let clock = VirtualClock()
    let runTask = Mutex<Task<StoreResult<Flow>, Never>?>(nil)
    let harness = StoreHarness<Flow, Act>(
      initialState: Flow(), clock: clock, onCancel: .shutdown
    ) { state, action in
      switch action {
      case .start:
        return .run(name: "racer") { send in
          send(.got("sent just before the run was cancelled"))
          runTask.withLock { $0?.cancel() }
        }
      case .shutdown:
        state.phase = "stopped"
        return .none
      default:
        state.got.append("\(action)")
        return .none
      }
    }
    runTask.withLock { $0 = harness.task }
    harness.send(.start("racer"))
    #expect(harness.result?.reason == .cancelled)
    #expect(
      harness.take() == [
        "apply start(\"racer\")", "start racer#1", "apply shutdown", "end racer#1 cancelled",
      ])
    #expect(harness.result?.state == Flow(phase: "stopped"))
  }

  @Test func onCancelIsNotAppliedWhenTheRunEndsByItself() {
    let harness = makeHarness()
    harness.send(.start("first"))
    harness.send(.cancelAndFinish)
    #expect(harness.result?.reason == .finished)
    #expect(harness.state.phase == "running")
  }

  @Test func effectCancelledInTheLastTurnStillReportsItsEnd() {
    let harness = makeHarness()
    harness.send(.start("first"))
    harness.send(.start("second"))
    harness.send(.cancelAndFinish)
    #expect(harness.result?.reason == .finished)
    #expect(
      harness.take() == [
        "apply start(\"first\")", "start first#1",
        "apply start(\"second\")", "queue second#2",
        "apply cancelAndFinish", "end second#2 cancelled", "end first#1 cancelled",
      ])
  }

  @Test func stopWhenIdleEndsOnceInputsEndedAndNothingIsInFlight() {
    let harness = makeHarness(stopWhenIdle: true)
    harness.send(.start("first"))
    harness.finishInputs()
    #expect(harness.result == nil)
    harness.clock.advance(by: .seconds(9))
    #expect(harness.result == nil)
    harness.clock.advance(by: .seconds(1))
    #expect(harness.result?.reason == .idle)
    #expect(harness.result?.state.phase == "running")
    #expect(harness.take().suffix(1) == ["end first#1 finished"])
  }

  @Test func withoutStopWhenIdleTheRunOutlivesItsInputs() {
    let harness = makeHarness(stopWhenIdle: false)
    harness.finishInputs()
    harness.clock.run()
    #expect(harness.result == nil)
    harness.cancel()
    #expect(harness.result?.reason == .cancelled)
  }

  @Test func actionsFromInputsAndFromEffectsKeepTheirOrder() {
    let harness = makeHarness(stopWhenIdle: true)
    harness.yield(.input(0))
    for n in 1...20 {
      harness.yield(.input(n))
    }
    harness.finishInputs()
    #expect(harness.result?.reason == .idle)
    let applied = harness.state.applied
    #expect(applied.count == 41)
    #expect(applied.compactMap { if case .input(let n) = $0 { n } else { nil } } == Array(0...20))
    #expect(applied.compactMap { if case .echo(let n) = $0 { n } else { nil } } == Array(1...20))
    // Both sources really were interleaved, so the order above is not an accident.
    #expect(applied.last != .input(20))
  }
}
