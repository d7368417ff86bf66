import LoadctlCommands
import LoadctlCore
import Synchronization
import Testing

/// A fake backend on the test clock: each query takes its own latency, and every call is logged.
final class FakeSearchBackend: Sendable {
  private let log = Mutex<[String]>([])
  let clock: VirtualClock
  let latencies: [String: Duration]
  let failing: Set<String>

  init(
    clock: VirtualClock, latencies: [String: Duration] = [:], failing: Set<String> = []
  ) {
    self.clock = clock
    self.latencies = latencies
    self.failing = failing
  }

  /// Every query asked for so far, in order.
  var asked: [String] { log.withLock { $0 } }

  static let corpus = SearchCorpus(names: ["Swift", "SwiftUI.List", "swap", "Task", "TaskGroup"])

  func fetch(_ request: SearchRequest) async throws -> SearchHits {
    log.withLock { $0.append(request.query) }
    try await clock.sleep(for: latencies[request.query] ?? .milliseconds(200))
    if failing.contains(request.query) { throw LoadFailure("offline") }
    return Self.corpus.search(request.query, limit: 10)
  }

  func hits(_ query: String) -> SearchHits { Self.corpus.search(query, limit: 10) }

  /// The response the backend gives for `query`, typed as change number `revision`.
  func answer(_ query: String, _ revision: Int) -> SearchAction {
    .response(query: query, revision: revision, result: .success(hits(query)))
  }

  /// The phase that shows the results for `query`.
  func results(_ query: String) -> SearchPhase { .results(query: query, hits: hits(query)) }

  /// A store running the search flow against this backend.
  func store(debounce: Duration = .milliseconds(300), naive: Bool = false)
    -> TestStore<SearchState, SearchAction>
  {
    let flow = SearchFlow(fetch: fetch, clock: clock, debounce: debounce, naive: naive)
    return TestStore(initialState: SearchState(), clock: clock, reducer: flow.reduce)
  }
}

/// `SearchState` for a query typed as change number `revision`, in a given phase.
func searchState(
  _ phase: SearchPhase, query: String, revision: Int, newestShown: Int = 0, stale: Bool = false
) -> SearchState {
  var state = SearchState()
  state.phase = phase
  state.query = query
  state.revision = revision
  state.newestShown = newestShown
  state.stale = stale
  return state
}

/// Effect ends as `label outcome` lines, for asserting what was cancelled.
func endings(_ store: TestStore<SearchState, SearchAction>) -> [String] {
  store.effectEvents.compactMap { event in
    guard case .effectFinished(let info, let outcome) = event else { return nil }
    return "\(info.label)#\(info.serial) \(outcome.name)"
  }
}

@Suite struct SearchFlowTests {
  @Test func eachKeystrokeRestartsTheDebounceAndOnlyThePauseSearches() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    try store.send(.queryChanged("s")) {
      $0 = searchState(.debouncing(query: "s"), query: "s", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 2)
    }
    backend.clock.advance(by: .milliseconds(299))
    #expect(backend.asked == [])
    backend.clock.advance(by: .milliseconds(1))
    try store.receive(.debounceElapsed(query: "sw", revision: 2)) {
      $0.phase = .searching(query: "sw")
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    #expect(backend.asked == ["sw"])
    #expect(
      endings(store) == ["debounce#1 cancelled", "debounce#2 finished", "request#3 finished"])
    #expect(backend.clock.now.offset == .milliseconds(700))
    try store.finish()
  }

  @Test func aNewQueryCancelsTheRequestInFlightBeforeDebouncingItself() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(300))
    try store.receive(.debounceElapsed(query: "sw", revision: 1)) {
      $0.phase = .searching(query: "sw")
    }
    backend.clock.advance(by: .milliseconds(150))
    try store.send(.queryChanged("swi")) {
      $0 = searchState(.debouncing(query: "swi"), query: "swi", revision: 2)
    }
    #expect(endings(store) == ["debounce#1 finished", "request#2 cancelled"])
    #expect(store.inFlight.map(\.label) == ["debounce"])
    backend.clock.advance(by: .milliseconds(300))
    try store.receive(.debounceElapsed(query: "swi", revision: 2)) {
      $0.phase = .searching(query: "swi")
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("swi", 2)) {
      $0.phase = backend.results("swi")
      $0.newestShown = 2
    }
    #expect(backend.asked == ["sw", "swi"])
    try store.finish()
  }

  @Test func aSlowOlderRequestNeverOverwritesAFasterNewerOne() throws {
    // Without cancellation "s" (900 ms) would land after "sw" (100 ms) and win.
    let backend = FakeSearchBackend(
      clock: VirtualClock(), latencies: ["s": .milliseconds(900), "sw": .milliseconds(100)])
    let store = backend.store(debounce: .zero)
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
    #expect(backend.clock.run())
    #expect(endings(store) == ["request#1 cancelled", "request#2 finished"])
    #expect(store.state.phase == backend.results("sw"))
    try store.finish()
  }

  @Test func aResponseForAnOlderQueryIsIgnoredByTheReducerToo() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store(debounce: .zero)
    try store.send(.queryChanged("s")) {
      $0 = searchState(.searching(query: "s"), query: "s", revision: 1)
    }
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.searching(query: "sw"), query: "sw", revision: 2)
    }
    // As if the cancelled request for "s" had answered anyway.
    try store.sendIgnored(
      backend.answer("s", 1),
      reason: "response for an older query")
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("sw", 2)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 2
    }
    try store.sendIgnored(
      .debounceElapsed(query: "sw", revision: 2), reason: "not debouncing query 2")
    try store.finish()
  }

  @Test func anEmptyQueryClearsAtOnceAndCancelsWithoutARequest() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 1)
    }
    try store.send(.queryChanged("")) {
      $0 = searchState(.idle, query: "", revision: 2, newestShown: 2)
    }
    #expect(store.inFlight.isEmpty)
    try store.send(.queryChanged("swi")) {
      $0 = searchState(.debouncing(query: "swi"), query: "swi", revision: 3, newestShown: 2)
    }
    backend.clock.advance(by: .milliseconds(300))
    try store.receive(.debounceElapsed(query: "swi", revision: 3)) {
      $0.phase = .searching(query: "swi")
    }
    try store.send(.queryChanged("")) {
      $0 = searchState(.idle, query: "", revision: 4, newestShown: 4)
    }
    #expect(backend.clock.run())
    #expect(backend.asked == ["swi"])
    #expect(
      endings(store) == ["debounce#1 cancelled", "debounce#2 finished", "request#3 cancelled"])
    try store.finish()
  }

  @Test func theSameTextDoesNotRestartTheDebounce() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.sendIgnored(.queryChanged("sw"), reason: "query unchanged")
    backend.clock.advance(by: .milliseconds(100))
    try store.receive(.debounceElapsed(query: "sw", revision: 1)) {
      $0.phase = .searching(query: "sw")
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer("sw", 1)) {
      $0.phase = backend.results("sw")
      $0.newestShown = 1
    }
    try store.finish()
  }

  /// The same text spelled with other scalars (`café` decomposed after composed) is a new
  /// query: `--exec` and `--url` get its bytes, which differ. It used to be ignored as
  /// unchanged (`String ==` is canonical), leaving the old text's results on screen.
  @Test func theSameTextInOtherScalarsIsANewQuery() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
    try store.send(.queryChanged(composed)) {
      $0 = searchState(.debouncing(query: composed), query: composed, revision: 1)
    }
    try store.send(.queryChanged(decomposed)) {
      $0 = searchState(.debouncing(query: decomposed), query: decomposed, revision: 2)
    }
    backend.clock.advance(by: .milliseconds(300))
    try store.receive(.debounceElapsed(query: decomposed, revision: 2)) {
      $0.phase = .searching(query: decomposed)
    }
    backend.clock.advance(by: .milliseconds(200))
    try store.receive(backend.answer(decomposed, 2)) {
      $0.phase = backend.results(decomposed)
      $0.newestShown = 2
    }
    #expect(backend.asked.map { Array($0.utf8) } == [Array(decomposed.utf8)])
    try store.finish()
  }

  @Test func aFailingBackendEndsFailedWithItsMessage() throws {
    let backend = FakeSearchBackend(clock: VirtualClock(), failing: ["sw"])
    let store = backend.store()
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(500))
    try store.receive(.debounceElapsed(query: "sw", revision: 1)) {
      $0.phase = .searching(query: "sw")
    }
    try store.receive(.response(query: "sw", revision: 1, result: .failure(LoadFailure("offline"))))
    {
      $0.phase = .failed(query: "sw", message: "offline")
      $0.newestShown = 1
    }
    #expect(endings(store) == ["debounce#1 finished", "request#2 failed"])
    try store.finish()
  }

  @Test(arguments: [
    (SearchPhase.debouncing(query: "sw"), SearchPhase.idle),
    (.searching(query: "sw"), .idle),
  ])
  func interruptCancelsWhateverIsPending(pending: SearchPhase, after: SearchPhase) throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store()
    try store.send(.queryChanged("sw")) {
      $0 = searchState(.debouncing(query: "sw"), query: "sw", revision: 1)
    }
    if pending != store.state.phase {
      backend.clock.advance(by: .milliseconds(300))
      try store.receive(.debounceElapsed(query: "sw", revision: 1)) { $0.phase = pending }
    }
    try store.send(.interrupt) { $0.phase = after }
    #expect(store.inFlight.isEmpty)
    #expect(backend.clock.run())
    try store.finish()
  }

  @Test func interruptKeepsResultsAlreadyShown() throws {
    let backend = FakeSearchBackend(clock: VirtualClock())
    let store = backend.store(debounce: .zero)
    try store.send(.queryChanged("task")) {
      $0 = searchState(.searching(query: "task"), query: "task", revision: 1)
    }
    backend.clock.advance(by: .milliseconds(200))
    let hits = backend.hits("task")
    #expect(hits == SearchHits(items: ["Task", "TaskGroup"], total: 2))
    try store.receive(.response(query: "task", revision: 1, result: .success(hits))) {
      $0.phase = .results(query: "task", hits: hits)
      $0.newestShown = 1
    }
    try store.send(.interrupt)
    try store.finish()
  }
}
