import LoadctlCore
import Testing

/// `count` actions, the first at once and each next one `gap` later on `clock`.
private struct Paced: AsyncSequence, Sendable {
  typealias Element = Int
  typealias Failure = Never
  let clock: VirtualClock
  let gap: Duration
  let count: Int

  func makeAsyncIterator() -> Iterator { Iterator(paced: self) }

  struct Iterator: AsyncIteratorProtocol {
    let paced: Paced
    var sent = 0

    mutating func next() async -> Int? {
      guard sent < paced.count else { return nil }
      if sent > 0 {
        do { try await paced.clock.sleep(for: paced.gap) } catch { return nil }
      }
      sent += 1
      return sent
    }
  }
}

/// Runs work that takes `work` per action, registered under one id with `policy`, with actions
/// arriving every `gap`; returns each warning with the time it was raised, in seconds.
private func lints(
  policy: EffectPolicy, gap: Duration, count: Int, work: Duration = .seconds(1),
  waits: Set<String> = []
) -> [String] {
  let clock = VirtualClock()
  let store = Store<Int, Int>(initialState: 0) { state, n in
    guard n > 0 else {
      state += 1
      return .none
    }
    return .run(name: "work") { send in
      try await clock.sleep(for: work)
      send(-n)
    }.cancellable(id: "work", policy: policy)
  }
  return observed(store, clock: clock, inputs: Paced(clock: clock, gap: gap, count: count), waits)
}

/// Runs `store` over `inputs` with the policy lints watching; each warning with its time.
private func observed<Input: AsyncSequence<Int, Never> & Sendable>(
  _ store: Store<Int, Int>, clock: VirtualClock, inputs: Input, _ waits: Set<String>
) -> [String] {
  let raised = Recorder<String>()
  _ = clock.launch {
    var lints = PolicyLints(waits: waits)
    _ = await store.run(inputs: inputs) { event in
      if let warning = lints.observe(event, at: clock.now.offset) {
        raised.append("\(warning.lint) \(warning.subject) @\(clock.now.offset)")
      }
    }
  }
  clock.run()
  return raised.values
}

/// A debounced search: each input `n > 0` restarts a `debounce` wait under `latest`, which then
/// starts the `request` (taking `work`) under the same id, as the search flow does.
private func debounced(gap: Duration, count: Int, debounce: Duration, work: Duration)
  -> [String]
{
  let clock = VirtualClock()
  let store = Store<Int, Int>(initialState: 0) { state, n in
    switch n {
    case 1...:
      return .run(name: "debounce") { send in
        try await clock.sleep(for: debounce)
        send(-n)
      }.cancellable(id: "search", policy: .latest)
    case ..<0:
      return .run(name: "request") { send in
        try await clock.sleep(for: work)
        send(0)
      }.cancellable(id: "search", policy: .parallel)
    default:
      state += 1
      return .none
    }
  }
  return observed(
    store, clock: clock, inputs: Paced(clock: clock, gap: gap, count: count), ["debounce"])
}

@Suite struct PolicyLintsTests {
  /// One action every 0.6 s, each taking 1 s: the queue is empty last at 1.0 s (its second
  /// effect starts), fills from 1.2 s on and never empties again, so it is raised at the first
  /// arrival more than 5 s later, 6.6 s, and at each of the 8 after it (repeats).
  @Test func aQueueThatKeepsGrowingIsABacklog() throws {
    let raised = lints(policy: .queue, gap: .milliseconds(600), count: 20)
    #expect(raised.first == "backlog work @6.6 seconds")
    #expect(raised.allSatisfy { $0.hasPrefix("backlog work") })
    #expect(raised.count == 9)
  }

  /// Ten at once, drained over ten seconds: long, but it never grows after the burst.
  @Test func aBurstThatDrainsIsNotABacklog() {
    #expect(lints(policy: .queue, gap: .zero, count: 10) == [])
  }

  /// Arrivals just slower than the work: the queue empties before each one.
  @Test func aQueueThatKeepsUpIsNotABacklog() {
    #expect(lints(policy: .queue, gap: .milliseconds(1100), count: 20) == [])
  }

  /// One action every 0.3 s, each taking 1 s, under latest: every one is superseded (the first
  /// at 0.3 s), none completes, raised at the first supersession more than 3 s later.
  @Test(arguments: [300, 900])
  func latestWorkThatNeverCompletesIsStarved(gapMilliseconds: Int) {
    let gap = Duration.milliseconds(gapMilliseconds)
    let raised = lints(policy: .latest, gap: gap, count: 20)
    let first = (1...).lazy.map { gap * $0 }.first { $0 - gap > .seconds(3) }
    #expect(raised.first == first.map { "starved work @\($0)" })
    #expect(raised.allSatisfy { $0.hasPrefix("starved work") })
  }

  /// Keys faster than the debounce, for longer than the threshold: only the wait is ever
  /// superseded, and that is the debounce doing its job.
  @Test(arguments: [50, 150, 250])
  func typingFasterThanTheDebounceIsNotStarved(gapMilliseconds: Int) {
    let raised = debounced(
      gap: .milliseconds(gapMilliseconds), count: 60, debounce: .milliseconds(300),
      work: .seconds(1))
    #expect(raised == [])
  }

  /// Each pause lets a request start, and the next key supersedes it before it completes: the
  /// requests are starved, and the warning names them, not the debounce.
  @Test func requestsSupersededByEachPauseAreStarved() {
    let raised = debounced(
      gap: .milliseconds(400), count: 20, debounce: .milliseconds(300), work: .seconds(1))
    // The first request starts at 0.3 s and is superseded at 0.4 s; raised at the first
    // supersession more than 3 s later, 3.6 s.
    #expect(raised.first == "starved request @3.6 seconds")
    #expect(raised.allSatisfy { $0.hasPrefix("starved request") })
  }

  /// A wait named in `waits` is no work, whatever its policy's supersessions.
  @Test func supersededWaitsAreNotStarved() {
    #expect(lints(policy: .latest, gap: .milliseconds(300), count: 20, waits: ["work"]) == [])
  }

  /// Just slower than the work: each completes before the next arrives.
  @Test func latestWorkThatCompletesIsNotStarved() {
    #expect(lints(policy: .latest, gap: .milliseconds(1100), count: 20) == [])
  }

  @Test(arguments: [EffectPolicy.parallel, .drop])
  func otherPoliciesRaiseNothing(policy: EffectPolicy) {
    #expect(lints(policy: policy, gap: .milliseconds(300), count: 20) == [])
  }

  @Test func lintsAreNamedOnce() {
    #expect(
      Lint.all.map(\.name) == [
        "needs-sigkill", "left-behind", "backlog", "starved", "dropped", "late",
      ])
    #expect(Lint(named: "late") == .late)
    #expect(Lint(named: "Late") == nil)
  }
}
