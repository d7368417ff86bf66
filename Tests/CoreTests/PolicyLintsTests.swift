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
  policy: EffectPolicy, gap: Duration, count: Int, work: Duration = .seconds(1)
) -> [String] {
  let clock = VirtualClock()
  let raised = Recorder<String>()
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
  _ = clock.launch {
    var lints = PolicyLints()
    _ = await store.run(inputs: Paced(clock: clock, gap: gap, count: count)) { event in
      if let warning = lints.observe(event, at: clock.now.offset) {
        raised.append("\(warning.lint) \(warning.subject) @\(clock.now.offset)")
      }
    }
  }
  clock.run()
  return raised.values
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
