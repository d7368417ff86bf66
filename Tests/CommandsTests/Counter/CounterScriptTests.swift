import LoadctlCommands
import LoadctlCore
import Synchronization
import Testing

/// What one scripted run did: the final state, when it ended, and each store event as a line.
private struct ScriptRun {
  var state: CounterState
  var reason: StoreStopReason
  var endedAt: Duration
  var trace: [String]
  var rejected: [InputError]
}

/// Runs `lines` as `loadctl counter` would, but on a test clock: input lines through
/// `TimedLines` (timing prefixes included), the store until idle.
private func run(_ lines: [String], policy: EffectPolicy, delay: Duration = .seconds(1)) async
  -> ScriptRun
{
  let clock = VirtualClock()
  let flow = CounterFlow(clock: clock, delay: delay, policy: policy)
  let trace = Mutex<[String]>([])
  let rejected = Mutex<[InputError]>([])
  let inputs = TimedLines(
    lines: LineSource.lines(lines), clock: LineClock(clock: clock, elapsed: { clock.now.offset }),
    parse: CounterAction.parse, reject: { error in rejected.withLock { $0.append(error) } })
  let store = Store(initialState: CounterState(), reducer: flow.reduce)
  let task = clock.launch {
    await store.run(inputs: inputs) { event in
      let line: String =
        switch event {
        case .transition(let action, _, let to, _): "\(action.name) → \(to.count)/\(to.inFlight)"
        case .ignored(let action, let reason, _): "ignored \(action.name): \(reason)"
        default: effectLine(event) ?? "\(event)"
        }
      trace.withLock { $0.append("\(clock.now.offset) \(line)") }
    }
  }
  clock.run()
  let result = await task.value
  return ScriptRun(
    state: result.state, reason: result.reason, endedAt: clock.now.offset,
    trace: trace.withLock { $0 }, rejected: rejected.withLock { $0 })
}

@Suite struct CounterScriptTests {
  /// Three delayed increments tapped at once: the documented count and end time per policy.
  @Test(arguments: [
    (EffectPolicy.drop, 1, Duration.seconds(1)),
    (.latest, 1, .seconds(1)),
    (.queue, 3, .seconds(3)),
    (.parallel, 3, .seconds(1)),
  ])
  func threeTapsAtOnce(policy: EffectPolicy, count: Int, endsAt: Duration) async {
    let result = await run(["d", "d", "d"], policy: policy)
    #expect(result.state == CounterState(count: count, inFlight: 0))
    #expect(result.reason == .idle)
    #expect(result.endedAt == endsAt)
  }

  @Test func positionalStyleActionsGiveAnExactCount() async {
    let result = await run(["+", "+", "-", "inc", "DEC", "increment", "d"], policy: .drop)
    #expect(result.state == CounterState(count: 3))
    #expect(result.endedAt == .seconds(1))
    #expect(result.rejected == [])
  }

  @Test func timedLinesFollowTheClock() async {
    let result = await run(["d", "+500ms d", "+600ms d"], policy: .drop)
    #expect(
      result.trace == [
        "0.0 seconds delayed_increment → 0/1", "0.0 seconds start #1",
        "0.5 seconds ignored delayed_increment: already loading", "0.5 seconds drop #2",
        "1.0 seconds increment_response → 1/0", "1.0 seconds end #1 finished",
        "1.1 seconds delayed_increment → 1/1", "1.1 seconds start #3",
        "2.1 seconds increment_response → 2/0", "2.1 seconds end #3 finished",
      ])
  }

  /// A tap due at the instant of the response, applied right after it: the first effect has
  /// sent its response but not yet returned. Under `drop` the runtime would still count it as
  /// busy and drop the new one, leaving `isLoading` on for good; the reducer releases the id.
  @Test(arguments: EffectPolicy.allCases)
  func aTapRightAfterTheResponseStartsANewIncrement(policy: EffectPolicy) async {
    // The last line starts sleeping after the effect did, so it wakes right after it.
    let result = await run(["d", "+500ms +", "+500ms d"], policy: policy)
    #expect(result.state == CounterState(count: 3, inFlight: 0))
    #expect(result.endedAt == .seconds(2))
    let atOneSecond = result.trace.filter { $0.hasPrefix("1.0 seconds") }
    #expect(atOneSecond.first == "1.0 seconds increment_response → 2/0")
    #expect(atOneSecond.contains("1.0 seconds delayed_increment → 2/1"))
    #expect(!atOneSecond.contains { $0.contains("drop") || $0.contains("ignored") })
  }

  /// The same instant, but the tap is applied first: it meets a pending increment.
  @Test(arguments: [(EffectPolicy.drop, 1), (.latest, 1), (.queue, 2), (.parallel, 2)])
  func aTapRightBeforeTheResponseMeetsThePolicy(policy: EffectPolicy, count: Int) async {
    // The second line starts sleeping before the effect does, so it wakes first.
    let result = await run(["d", "+1s d"], policy: policy)
    #expect(result.state == CounterState(count: count, inFlight: 0))
    let first = result.trace.first { $0.hasPrefix("1.0 seconds") }
    #expect(first?.contains("delayed_increment") == true)
  }

  @Test func badLinesAreRejectedWithTheirNumberAndTheRestStillApplies() async {
    let result = await run(["+", "bogus", "interrupt", "+"], policy: .drop)
    #expect(result.state.count == 2)
    #expect(result.rejected.map(\.line) == [2, 3])
    #expect(result.rejected.first?.message.hasPrefix("unknown action 'bogus'") == true)
    #expect(result.rejected.last?.message.hasPrefix("'interrupt' is sent by loadctl") == true)
  }
}
