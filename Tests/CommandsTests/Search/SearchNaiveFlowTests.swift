import LoadctlCommands
import LoadctlCore
import Testing

/// `--naive`: the seed's `SearchScreenWrong`, where response order is not request order.
@Suite struct SearchNaiveFlowTests {
  @Test func everyChangeStartsItsOwnRequestAndNothingIsCancelled() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store(naive: true)
    try store.send(.queryChanged("s")) {
      $0 = searchState(.searching(query: "s"), query: "s", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(50))
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 2)
    }
    backend.clock.advance(by: .milliseconds(50))
    try store.send(.queryChanged("swa")) {
      $0 = searchState(.searching(query: "swa"), query: "swa", revision: 3)
    }
    #expect(store.inFlight.map(\.label) == ["request", "request", "request"])
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(backend.answer("s", 1)) {
      $0.phase = backend.results("s")
      $0.newestShown = 1
    }
    backend.clock.advance(by: .milliseconds(50))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    backend.clock.advance(by: .milliseconds(50))
    try store.receive(backend.answer("swa", 3)) {
      $0.phase = backend.results("swa")
      $0.newestShown = 3
    }
    #expect(backend.asked == ["s", "sw", "swa"])
    #expect(endings(store) == ["request#1 finished", "request#2 finished", "request#3 finished"])
    try store.finish()
  }

  @Test func anOlderResponseAfterANewerOneIsAppliedAndMarkedStale() throws {
    let backend = FakeSearchBackend(
      clock: VirtualClock(), latencies: ["s": .milliseconds(300), "sw": .milliseconds(100)])
    let store = backend.store(naive: true)
    try store.send(.queryChanged("s")) {
      $0 = searchState(.searching(query: "s"), query: "s", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(50))
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 2)
    }
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    backend.clock.advance(by: .milliseconds(150))
    // The race: "s" lands last and overwrites the results of the newer "sw".
    try store.receive(backend.answer("s", 1)) {
      $0.phase = backend.results("s")
      $0.stale = true
    }
    #expect(store.state.query == "sw")
    try store.finish()
  }

  @Test func anOlderResponseBeforeAnyNewerOneIsNotStale() throws {
    let backend = FakeSearchBackend(
      clock: VirtualClock(), latencies: ["s": .milliseconds(100), "sw": .milliseconds(300)])
    let store = backend.store(naive: true)
    try store.send(.queryChanged("s")) {
      $0 = searchState(.searching(query: "s"), query: "s", revision: 1)
    }
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 2)
    }
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(backend.answer("s", 1)) {
      $0.phase = backend.results("s")
      $0.newestShown = 1
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    try store.finish()
  }

  @Test func aFreshResponseClearsTheStaleMark() throws {
    let backend = FakeSearchBackend(
      clock: VirtualClock(),
      latencies: ["s": .milliseconds(300), "sw": .milliseconds(100), "swa": .milliseconds(400)])
    let store = backend.store(naive: true)
    try store.send(.queryChanged("s")) {
      $0 = searchState(.searching(query: "s"), query: "s", revision: 1)
    }
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 2)
    }
    try store.send(.queryChanged("swa")) {
      $0 = searchState(.searching(query: "swa"), query: "swa", revision: 3)
    }
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("s", 1)) {
      $0.phase = backend.results("s")
      $0.stale = true
    }
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(backend.answer("swa", 3)) {
      $0.phase = backend.results("swa")
      $0.newestShown = 3
      $0.stale = false
    }
    try store.finish()
  }

  @Test func anEmptyQueryClearsButCancelsNothingSoTheOldAnswerStillLands() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store(naive: true)
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 1)
    }
    try store.send(.queryChanged("")) {
      $0 = searchState(.idle, query: "", revision: 2, newestShown: 2)
    }
    #expect(store.inFlight.map(\.label) == ["request"])
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("sw", 1)) {
      $0.phase = backend.results("sw")
      $0.stale = true
    }
    #expect(backend.asked == ["sw"])
    try store.finish()
  }

  @Test func naiveModeNeverDebounces() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    // Even with a debounce configured, naive asks at once.
    let flow = SearchFlow(
      fetch: backend.fetch, clock: backend.clock, debounce: .seconds(5), naive: true)
    let store = TestStore(initialState: SearchState(), clock: backend.clock, reducer: flow.reduce)
    try store.send(.queryChanged("task")) {
      $0 = searchState(.searching(query: "task"), query: "task", revision: 1)
    }
    #expect(backend.asked == ["task"])
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("task", 1)) {
      $0.phase = backend.results("task")
      $0.newestShown = 1
    }
    try store.finish()
  }
}
