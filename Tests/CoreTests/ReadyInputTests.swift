import Testing

@testable import LoadctlCore

private enum Step: Equatable, Sendable {
  case add(Int)
  case echo(Int)
}

/// `add(1)` … `add(count)`, every one ready at once, each read logged as `next N` (the input
/// task's read) or `ready N` (the run loop's own).
private struct ReadyInputs: AsyncSequence, Sendable {
  let count: Int
  let log: Recorder<String>

  struct AsyncIterator: ReadyIterator {
    let count: Int
    let log: Recorder<String>
    var taken = 0

    mutating func next() async -> Step? { take("next") }
    mutating func nextReady() -> Step? { take("ready") }

    private mutating func take(_ how: String) -> Step? {
      guard taken < count else { return nil }
      taken += 1
      log.append("\(how) \(taken)")
      return .add(taken)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count, log: log) }
}

/// The same actions without ``ReadyIterator``: every one handed over by the input task.
private struct PlainInputs: AsyncSequence, Sendable {
  let count: Int

  struct AsyncIterator: AsyncIteratorProtocol {
    let count: Int
    var taken = 0

    mutating func next() async -> Step? {
      guard taken < count else { return nil }
      taken += 1
      return .add(taken)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

/// Echoes `add(N)` through an effect for every N divisible by `every`.
private func echoing(every: Int) -> Store<[Step], Step>.Reducer {
  { state, action in
    state.append(action)
    guard case .add(let amount) = action, amount % every == 0 else { return .none }
    return .run(name: "echo") { send in send(.echo(amount)) }
  }
}

/// How the run loop takes an input's ready actions itself (``ReadyIterator``).
@Suite struct ReadyInputTests {
  /// Ready actions are applied in order, once each, mostly by the loop itself; and the loop lets
  /// the input task take a turn after each run of ready ones.
  @Test func theLoopTakesReadyActionsItselfAndLetsTheInputTaskTakeTurns() async {
    let count = 1000
    let log = Recorder<String>()
    let store = Store<[Step], Step>(initialState: []) { state, action in
      state.append(action)
      return .none
    }
    let clock = VirtualClock()
    let run = clock.launch { await store.run(inputs: ReadyInputs(count: count, log: log)) { _ in } }
    clock.drain()
    let result = await run.value
    #expect(result.reason == .idle)
    #expect(result.state == (1...count).map(Step.add))
    let reads = log.values
    #expect(
      reads.map { $0.split(separator: " ").last.map(String.init) } == (1...count).map { "\($0)" })
    let byTask = reads.filter { $0.hasPrefix("next") }.count
    #expect(byTask >= 1 && byTask < count / 100)
    // No run of ready reads is longer than the loop's bound.
    var longest = 0
    var current = 0
    for read in reads {
      current = read.hasPrefix("ready") ? current + 1 : 0
      longest = max(longest, current)
    }
    #expect(longest == Store<[Step], Step>.RunLoop.readyRun)
  }

  /// Whatever effects do, the loop taking ready actions applies everything in the order the
  /// input task handing each one over does: a step that starts an effect, or an effect's action
  /// waiting, gives the input back to the task.
  @Test(arguments: [1, 3, 7, 50])
  func readyActionsApplyInTheOrderHandedOverOnesDo(echoEvery: Int) async {
    let count = 400
    let store = Store<[Step], Step>(initialState: [], reducer: echoing(every: echoEvery))
    let clock = VirtualClock()
    let plain = clock.launch { await store.run(inputs: PlainInputs(count: count)) { _ in } }
    clock.drain()
    let ready = clock.launch {
      await store.run(inputs: ReadyInputs(count: count, log: Recorder())) { _ in }
    }
    clock.drain()
    let (handedOver, taken) = (await plain.value, await ready.value)
    #expect(taken.state.count == count + count / echoEvery)
    #expect(taken.state == handedOver.state)
  }
}
