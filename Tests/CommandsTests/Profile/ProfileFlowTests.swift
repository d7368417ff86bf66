import LoadctlCommands
import LoadctlCore
import Testing

/// Reducer tests for `profile`: every transition of the seed's `ProfileModel`, on a test clock.
@Suite struct ProfileFlowTests {
  private static let taylor = Profile(name: "Taylor")

  private func makeStore(
    clock: VirtualClock, retries: Int = 0, backoff: Duration = .milliseconds(100),
    failure: String? = nil
  ) -> TestStore<ProfileState, ProfileAction> {
    let flow = ProfileFlow(
      fetch: { _ in
        try await clock.sleep(for: .seconds(1))
        if let failure { throw LoadFailure(failure) }
        return Self.taylor
      }, clock: clock, retries: retries, backoff: backoff)
    return TestStore(initialState: ProfileState(), clock: clock, reducer: flow.reduce)
  }

  @Test func loadGoesIdleLoadingLoaded() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    clock.advance(by: .milliseconds(999))
    #expect(store.inFlight.map(\.label) == ["fetch"])
    clock.advance(by: .milliseconds(1))
    try store.receive(.loadResponse(.success(Self.taylor))) { $0.load = .loaded(Self.taylor) }
    try store.finish()
  }

  @Test func secondLoadWhileLoadingIsIgnored() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    try store.sendIgnored(.load, reason: "already loading")
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.success(Self.taylor))) { $0.load = .loaded(Self.taylor) }
    #expect(
      store.effectEvents.filter { if case .effectStarted = $0 { true } else { false } }.count == 1)
    try store.finish()
  }

  @Test func cancelReturnsToIdleAndTheResponseNeverArrives() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    clock.advance(by: .milliseconds(500))
    try store.send(.cancel) { $0.load = .idle }
    clock.run()
    #expect(clock.pendingSleepCount == 0)
    try store.finish()
  }

  @Test func cancelWhenNothingLoadsIsIgnored() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    try store.sendIgnored(.cancel, reason: "not loading")
    try store.sendIgnored(.retry, reason: "nothing to retry")
    try store.finish()
  }

  @Test func failureKeepsTheMessageAndRetryLoadsAgain() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock, failure: "offline")
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("offline")))) {
      $0.load = .failed("offline")
    }
    try store.send(.retry) {
      $0.load = .loading
      $0.attempt = 2
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("offline")))) {
      $0.load = .failed("offline")
    }
    try store.finish()
  }

  @Test func retriesBackOffByDoubling() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock, retries: 2, backoff: .milliseconds(100), failure: "down")
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("down")))) {
      $0.load = .failed("down")
      $0.retryPending = true
    }
    clock.advance(by: .milliseconds(99))
    #expect(store.state.load == .failed("down"))
    clock.advance(by: .milliseconds(1))
    try store.receive(.autoRetry) {
      $0.load = .loading
      $0.attempt = 2
      $0.retryPending = false
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("down")))) {
      $0.load = .failed("down")
      $0.retryPending = true
    }
    clock.advance(by: .milliseconds(199))
    #expect(store.state.load == .failed("down"))
    clock.advance(by: .milliseconds(1))
    try store.receive(.autoRetry) {
      $0.load = .loading
      $0.attempt = 3
      $0.retryPending = false
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("down")))) { $0.load = .failed("down") }
    #expect(clock.pendingSleepCount == 0)
    try store.finish()
  }

  @Test func cancelDuringBackoffStopsTheRetry() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock, retries: 1, failure: "down")
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    clock.advance(by: .seconds(1))
    try store.receive(.loadResponse(.failure(LoadFailure("down")))) {
      $0.load = .failed("down")
      $0.retryPending = true
    }
    try store.send(.cancel) { $0.retryPending = false }
    clock.run()
    try store.finish()
  }

  @Test func interruptWhileLoadingGoesIdleAndIsNeverRefused() throws {
    let clock = VirtualClock()
    let store = makeStore(clock: clock)
    try store.send(.interrupt)
    try store.send(.load) {
      $0.load = .loading
      $0.attempt = 1
    }
    try store.send(.interrupt) { $0.load = .idle }
    try store.finish()
  }

  @Test(arguments: [
    ("load", ProfileAction.load), ("retry", .retry), ("cancel", .cancel), ("quit", .quit),
    ("LOAD", .load), ("l", .load),
  ])
  func inputLinesParse(text: String, action: ProfileAction) {
    #expect((try? ProfileAction.parse(text).get()) == action)
  }

  @Test func unknownInputLineIsExplained() {
    guard case .failure(let error) = ProfileAction.parse("lod") else {
      Issue.record("'lod' parsed")
      return
    }
    #expect(error.message == "unknown action 'lod' (expected load, retry, cancel or quit)")
  }

  @Test func snapshotsNameTheirCase() {
    var state = ProfileState()
    #expect(state.snapshot.serialized == #"{"state":"idle"}"#)
    state.load = .loaded(Profile(name: "Taylor"))
    #expect(state.snapshot.serialized == #"{"state":"loaded","profile":{"name":"Taylor"}}"#)
    state.load = .failed("offline")
    state.attempt = 2
    #expect(
      state.snapshot.serialized
        == #"{"state":"failed","message":"offline","attempt":2,"retry_pending":false}"#)
  }

  @Test func profileDecodingNeedsAStringName() throws {
    let good = try JSONParser.parse(#"{"name":"Ana","city":"Porto"}"#)
    #expect(try Profile.decode(good).summary == "name: Ana, city: Porto")
    #expect(throws: LoadFailure.self) { try Profile.decode(JSONParser.parse(#"{"nam":1}"#)) }
    #expect(throws: LoadFailure.self) { try Profile.decode(JSONParser.parse("[1]")) }
  }
}
