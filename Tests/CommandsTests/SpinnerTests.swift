import LoadctlCommands
import LoadctlCore
import Synchronization
import Testing

/// The spinner only draws: redrawing it many times never starts, restarts or duplicates the work
/// it shows (a SwiftUI loading overlay once restarted its task on every render).
@Suite struct SpinnerTests {
  final class Counter: Sendable {
    let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
  }

  @Test func effectRunsOnceWhileTheSpinnerRedrawsManyTimes() async {
    let clock = VirtualClock()
    let fetches = Counter()
    let drawn = Counter()
    let spinner = Spinner(isLoading: { $0 == "fetch" }, write: { _ in drawn.add() })
    let flow = ProfileFlow(
      fetch: { _ in
        fetches.add()
        try await clock.sleep(for: .seconds(10))
        return Profile(name: "Taylor")
      }, clock: clock, retries: 0, backoff: .milliseconds(500))
    let store = Store(initialState: ProfileState(), reducer: flow.reduce)
    let finished = clock.launch {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await spinner.run(clock: clock) }
        let inputs = AnyInput<ProfileAction>([.load], then: nil)
        let result = await store.run(inputs: inputs) { event in
          switch event {
          case .effectStarted(let info):
            spinner.observe(.started(info))
          case .effectFinished(let info, let outcome):
            spinner.observe(.effectFinished(serial: info.serial, outcome: outcome))
          default:
            spinner.observe(.instant("transition"))
          }
        }
        group.cancelAll()
        return result.state
      }
    }
    clock.advance(by: .seconds(10))
    clock.drain()
    #expect(spinner.redraws >= 120, "10 s at 80 ms per frame")
    #expect(fetches.count == 1, "the fetch ran exactly once")
    let state = await finished.value
    #expect(state.load == .loaded(Profile(name: "Taylor")))
  }

  @Test func spinnerIgnoresEffectsThatAreNotLoading() {
    let drawn = Counter()
    let spinner = Spinner(isLoading: { $0 == "fetch" }, write: { _ in drawn.add() })
    spinner.observe(.effectStarted(serial: 1, label: "timer", track: "timer"))
    spinner.clear()
    #expect(drawn.count == 0)
  }
}
