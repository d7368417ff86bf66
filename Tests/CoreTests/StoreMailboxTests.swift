import Testing

@testable import LoadctlCore

private enum Step: Equatable, Sendable {
  case add(Int)
  case echo(Int)
  case stop
}

private struct Tally: Equatable, Sendable {
  var applied: [Step] = []
  var total = 0
  var stopped = false
}

/// A thousand `add(1)` without ever suspending, so nothing but the run's own check of
/// cancellation can stop a run over it early.
private struct NeverSuspending: AsyncSequence, Sendable {
  struct AsyncIterator: AsyncIteratorProtocol {
    var remaining = 1000
    mutating func next() async -> Step? {
      guard remaining > 0 else { return nil }
      remaining -= 1
      return .add(1)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}

/// Four inputs that log each read, so a test can see when the run asks for the next one.
private struct LoggedInputs: AsyncSequence, Sendable {
  let log: Recorder<String>

  struct AsyncIterator: AsyncIteratorProtocol {
    let log: Recorder<String>
    var next = 1
    mutating func next() async -> Step? {
      guard next <= 4 else { return nil }
      log.append("read \(next)")
      defer { next += 1 }
      return .add(next)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(log: log) }
}

/// How the store's run loop takes its inputs: itself while no effect is in flight, through a
/// pump task and ``StoreMailbox`` once one is, and how that mailbox waits and wakes.
@Suite struct StoreMailboxTests {
  /// While the run pulls an input itself, cancellation still stops it between two actions.
  @Test func aRunOverAnInputThatNeverSuspendsStopsWhereItWasCancelled() async {
    let store = Store<Tally, Step>(initialState: Tally()) { state, action in
      switch action {
      case .add(let amount): state.total += amount
      case .stop: state.stopped = true
      case .echo: break
      }
      return .none
    }
    let clock = VirtualClock()
    let task = clock.launch {
      await store.run(inputs: NeverSuspending(), onCancel: .stop) { event in
        // The observer runs on the run's own task: this cancels the run from inside a step.
        if case .transition(_, _, let state, _) = event, state.total == 5 {
          withUnsafeCurrentTask { $0?.cancel() }
        }
      }
    }
    let result = await task.value
    #expect(result.reason == .cancelled)
    #expect(result.state == Tally(total: 5, stopped: true))
  }

  /// The input that starts the first effect hands the rest of the inputs to the pump: none is
  /// lost, repeated or reordered, and the effect's actions are applied too.
  @Test func inputsGoOnThroughTheMailboxOnceAnEffectStarts() {
    let harness = StoreHarness<Tally, Step>(
      initialState: Tally(), clock: VirtualClock(), stopWhenIdle: true
    ) { state, action in
      state.applied.append(action)
      guard action == .add(3) else { return .none }
      return .run(name: "echo") { send in send(.echo(3)) }
    }
    for amount in 1...10 {
      harness.yield(.add(amount))
    }
    harness.finishInputs()
    #expect(harness.result?.reason == .idle)
    let applied = harness.result?.state.applied ?? []
    #expect(applied.filter { if case .add = $0 { true } else { false } } == (1...10).map(Step.add))
    #expect(applied.filter { $0 == .echo(3) }.count == 1)
    #expect(harness.take().contains("end echo#1 finished"))
  }

  /// With an effect in flight, the pump reads input N + 1 only after input N was applied, so
  /// what an input reader reports while reading (a rejected line) follows the earlier lines'
  /// transitions.
  @Test func thePumpReadsTheNextInputOnlyAfterTheLastOneWasApplied() async {
    let clock = VirtualClock()
    let log = Recorder<String>()
    let store = Store<Tally, Step>(initialState: Tally()) { state, action in
      guard case .add(let amount) = action else { return .none }
      state.total += amount
      // The first input starts an effect that outlives the inputs: the rest go through the pump.
      guard amount == 1 else { return .none }
      return .run(name: "hold") { _ in try? await clock.sleep(for: .seconds(1)) }
    }
    let run = clock.launch {
      await store.run(inputs: LoggedInputs(log: log)) { event in
        if case .transition(.add(let amount), _, _, _) = event { log.append("apply \(amount)") }
      }
    }
    clock.drain()
    clock.advance(by: .seconds(1))
    let result = await run.value
    #expect(result.state.total == 10)
    #expect(
      log.values == [
        "read 1", "apply 1", "read 2", "apply 2", "read 3", "apply 3", "read 4", "apply 4",
      ])
  }

  /// A run over inputs that stay open and never start an effect waits for them, and ends with
  /// `onCancel` when cancelled while waiting.
  @Test func cancellingARunWaitingForItsOwnInputAppliesOnCancel() {
    let harness = StoreHarness<Tally, Step>(
      initialState: Tally(), clock: VirtualClock(), onCancel: .stop
    ) { state, action in
      state.applied.append(action)
      return .none
    }
    harness.send(.add(1))
    #expect(harness.result == nil)
    harness.cancel()
    #expect(harness.result?.reason == .cancelled)
    #expect(harness.result?.state.applied == [.add(1), .stop])
  }

  /// The pump reads its next input only once the loop has applied the last one; effects never
  /// wait.
  @Test func theInputPumpWaitsUntilItsInputIsHandledAndEffectsNeverDo() async {
    let clock = VirtualClock()
    let mailbox = StoreMailbox<Int>()
    let sent = Recorder<Int>()
    let pump = clock.launch {
      for message in 1...5 {
        guard await mailbox.sendInput(message) else { return }
        sent.append(message)
      }
    }
    #expect(sent.values == [])
    mailbox.send(100)
    var batch: [Int] = []
    #expect(mailbox.take(into: &batch))
    #expect(batch == [1, 100])

    clock.drain()
    #expect(sent.values == [])
    mailbox.inputHandled()
    clock.drain()
    #expect(sent.values == [1])
    batch.removeAll()
    #expect(mailbox.take(into: &batch))
    #expect(batch == [2])

    mailbox.close()
    clock.drain()
    await pump.value
    #expect(sent.values == [1])
    mailbox.send(200)
    batch.removeAll()
    #expect(!mailbox.take(into: &batch))
  }

  @Test func cancelWakesAWaitingReceiveWithNothing() async {
    let (clock, mailbox, receiver) = Self.waitingReceive()
    #expect(!mailbox.isCancelled)
    mailbox.cancel()
    clock.drain()
    #expect(await receiver.value == [])
    #expect(mailbox.isCancelled)
  }

  @Test func aWaitingReceiveTakesEverythingSentBeforeItRuns() async {
    let (clock, mailbox, receiver) = Self.waitingReceive()
    mailbox.send(1)
    mailbox.send(2)
    mailbox.send(3)
    clock.drain()
    #expect(await receiver.value == [1, 2, 3])
  }

  /// A mailbox and a receive waiting on it, launched on a test clock.
  private static func waitingReceive() -> (VirtualClock, StoreMailbox<Int>, Task<[Int], Never>) {
    let clock = VirtualClock()
    let mailbox = StoreMailbox<Int>()
    let receiver = clock.launch { () -> [Int] in
      var batch: [Int] = []
      await mailbox.receive(into: &batch)
      return batch
    }
    return (clock, mailbox, receiver)
  }
}
