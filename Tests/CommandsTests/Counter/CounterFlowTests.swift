import LoadctlCommands
import LoadctlCore
import Testing

@Suite struct CounterFlowTests {
  @Test func incrementAndDecrementChangeTheCountAtOnce() throws {
    let store = makeCounterStore()
    try store.send(.increment) { $0.count = 1 }
    try store.send(.increment) { $0.count = 2 }
    try store.send(.decrement) { $0.count = 1 }
    try store.send(.decrement) { $0.count = 0 }
    try store.send(.decrement) { $0.count = -1 }
    try store.finish()
    #expect(store.effectEvents.isEmpty)
  }

  @Test func delayedIncrementLoadsAtOnceAndIncrementsAfterTheDelay() throws {
    let store = makeCounterStore()
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    #expect(store.state.isLoading)
    store.clock.advance(by: .milliseconds(999))
    try store.send(.increment) { $0.count = 1 }
    store.clock.advance(by: .milliseconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 2
      $0.inFlight = 0
    }
    #expect(!store.state.isLoading)
    try store.finish()
    #expect(counterEffects(store) == ["start #1", "end #1 finished"])
  }

  @Test func cancelStopsThePendingIncrement() throws {
    let store = makeCounterStore(.parallel)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    try store.send(.cancel) { $0.inFlight = 0 }
    store.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(store.state == CounterState(count: 0, inFlight: 0))
    #expect(
      counterEffects(store) == ["start #1", "start #2", "end #1 cancelled", "end #2 cancelled"])
  }

  @Test func cancelWithNothingPendingIsIgnored() throws {
    let store = makeCounterStore()
    try store.sendIgnored(.cancel, reason: "no delayed increment in flight")
    try store.finish()
  }

  @Test func interruptCancelsLikeCancelButIsNeverRefused() throws {
    let store = makeCounterStore()
    try store.send(.interrupt)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    try store.send(.interrupt) { $0.inFlight = 0 }
    store.clock.advance(by: .seconds(2))
    try store.finish()
    #expect(counterEffects(store) == ["start #1", "end #1 cancelled"])
  }

  @Test func snapshotAndTextNameEveryField() {
    let state = CounterState(count: 3, inFlight: 2)
    #expect(state.snapshot.serialized == #"{"count":3,"is_loading":true,"in_flight":2}"#)
    #expect(CounterState().snapshot.serialized == #"{"count":0,"is_loading":false,"in_flight":0}"#)
    #expect(state.summary == "count: 3, isLoading: true, inFlight: 2")
    #expect(CounterState(count: 1).summary == "count: 1, isLoading: false")
  }

  @Test func textShowsOnlyTheFieldsThatChanged() {
    let idle = CounterState()
    let one = CounterState(inFlight: 1)
    let two = CounterState(inFlight: 2)
    #expect(one.changes(since: idle) == ["isLoading: false → true"])
    #expect(two.changes(since: one) == ["inFlight: 1 → 2"])
    #expect(
      CounterState(count: 1, inFlight: 1).changes(since: two) == [
        "count: 0 → 1", "inFlight: 2 → 1",
      ])
    #expect(
      CounterState(count: 2).changes(since: CounterState(count: 1, inFlight: 1)) == [
        "count: 1 → 2", "isLoading: true → false",
      ])
    #expect(idle.changes(since: idle) == [])
  }

  @Test func actionNamesAreSnakeCaseInJSONAndSwiftInText() {
    let names = [
      CounterAction.increment, .decrement, .delayedIncrement, .incrementResponse, .cancel,
      .interrupt,
    ].map { "\($0.name)/\($0.summary)" }
    #expect(
      names == [
        "increment/increment", "decrement/decrement", "delayed_increment/delayedIncrement",
        "increment_response/incrementResponse", "cancel/cancel", "interrupt/interrupt",
      ])
  }
}
