import CounterFlow
import LoadctlCore
import LoadctlTestKit
import Testing

@Suite struct CounterTests {
  /// Virtual time: `advance(by:)` returns once everything due has run, so the test never sleeps.
  @Test func aBurstOfChangesSavesOnceWithTheLastValue() throws {
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock, reducer: Counter(clock: clock).reduce)
    store.send(.increment) { $0.count = 1 }
    clock.advance(by: .milliseconds(500))
    store.send(.increment) { $0.count = 2 }  // latest: the first save is cancelled
    clock.advance(by: .milliseconds(999))
    #expect(store.inFlight.map(\.label) == ["save"])
    clock.advance(by: .milliseconds(1))
    store.receive(.saved(2)) { $0.saved = 2 }
    store.finish()
  }

  @Test func aSaveThatWasNotInterruptedLands() throws {
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock, reducer: Counter(clock: clock).reduce)
    store.send(.decrement) { $0.count = -1 }
    clock.advance(by: .seconds(1))
    store.receive(.saved(-1)) { $0.saved = -1 }
    store.finish()
  }
}
