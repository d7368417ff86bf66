import LoadctlCore

/// Exhaustive reducer tests on Linux: every state change and every received action is asserted.
///
/// The flows' tests' own store: it throws ``TestStoreFailure`` and checks exhaustivity only in
/// ``finish(file:line:)``. New tests use `LoadctlTestKit`'s `TestStore`, which records failures
/// where they are written and fails a test that ends with work left.
///
/// The store runs on the ``VirtualClock``'s executor, so after each `send` or clock move everything
/// that can run has run: an action an effect sent is already waiting for
/// ``receive(_:_:file:line:)``, or it was not sent at all — no timeouts, no yields.
///
/// ```swift
/// let clock = VirtualClock()
/// let store = TestStore(initialState: Counter.State(), clock: clock) { state, action in
///   Counter(clock: clock).reduce(into: &state, action: action)
/// }
/// try store.send(.delayedIncrement) { $0.isLoading = true }
/// clock.advance(by: .seconds(1))
/// try store.receive(.incrementResponse) { $0.isLoading = false; $0.count = 1 }
/// try store.finish()
/// ```
final class TestStore<State: Sendable & Equatable, Action: Sendable & Equatable>: Sendable {
  private struct Log {
    var pending: [StoreEvent<State, Action>] = []
    var effectEvents: [StoreEvent<State, Action>] = []
    var live: [Int: EffectInfo] = [:]
  }

  /// The clock the store's effects must use.
  let clock: VirtualClock
  private let log = Locked(Log())
  private let current: Locked<State>
  private let input: AsyncStream<Action>.Continuation
  private let task: Task<StoreResult<State>, Never>

  /// Starts a store on `clock`'s executor with `initialState` and `reducer`.
  init(
    initialState: State, clock: VirtualClock, reducer: @escaping Store<State, Action>.Reducer
  ) {
    self.clock = clock
    self.current = Locked(initialState)
    let (inputs, input) = AsyncStream<Action>.makeStream()
    self.input = input
    let store = Store(initialState: initialState, reducer: reducer)
    let log = self.log
    task = clock.launch {
      await store.run(inputs: inputs, stopWhenIdle: false) { event in
        log.withLock { log in
          switch event {
          case .transition, .ignored:
            log.pending.append(event)
          case .effectStarted(let info), .effectQueued(let info):
            log.live[info.serial] = info
            log.effectEvents.append(event)
          case .effectFinished(let info, _):
            log.live[info.serial] = nil
            log.effectEvents.append(event)
          case .effectDropped:
            log.effectEvents.append(event)
          }
        }
      }
    }
  }

  deinit { stop() }

  private func stop() {
    task.cancel()
    clock.drain()
  }

  /// The state after the last asserted action.
  var state: State { current.withLock { $0 } }

  /// Effects running or queued now.
  var inFlight: [EffectInfo] {
    log.withLock { $0.live.values.sorted { $0.serial < $1.serial } }
  }

  /// Effect lifecycle events so far (started, queued, dropped, finished), oldest first.
  var effectEvents: [StoreEvent<State, Action>] { log.withLock { $0.effectEvents } }

  /// Sends `action` and asserts the state change `update` makes to the expected state.
  ///
  /// - Throws: ``TestStoreFailure`` if actions sent by effects were not received first, or the
  ///   state differs from the expected one.
  func send(
    _ action: Action, _ update: ((inout State) throws -> Void)? = nil,
    file: String = #fileID, line: Int = #line
  ) throws {
    try yield(action, file: file, line: line)
    try assertNext(action, update, what: "send", file: file, line: line)
  }

  /// Asserts that effects sent `action` next, and the state change it made.
  func receive(
    _ action: Action, _ update: ((inout State) throws -> Void)? = nil,
    file: String = #fileID, line: Int = #line
  ) throws {
    clock.drain()
    try assertNext(action, update, what: "receive", file: file, line: line)
  }

  /// Sends `action` and asserts that the reducer ignored it with `reason`, leaving the state as
  /// it was.
  func sendIgnored(
    _ action: Action, reason: String, file: String = #fileID, line: Int = #line
  ) throws {
    try yield(action, file: file, line: line)
    try assertIgnored(action, reason: reason, what: "send", file: file, line: line)
  }

  /// Asserts that effects sent `action` next and that the reducer ignored it with `reason`,
  /// leaving the state as it was (a response that arrives when nothing waits for it).
  func receiveIgnored(
    _ action: Action, reason: String, file: String = #fileID, line: Int = #line
  ) throws {
    clock.drain()
    try assertIgnored(action, reason: reason, what: "receive", file: file, line: line)
  }

  private func assertIgnored(
    _ action: Action, reason: String, what: String, file: String, line: Int
  ) throws {
    guard let event = popPending() else {
      throw TestStoreFailure(
        "expected to \(what) \(action), ignored; nothing happened", file: file, line: line)
    }
    guard case .ignored(let got, let gotReason, let actual) = event, got == action,
      gotReason == reason
    else {
      throw TestStoreFailure(
        "expected to \(what) \(action), ignored (\(reason)); got \(event)", file: file,
        line: line)
    }
    let expected = state
    current.withLock { $0 = actual }
    guard expected == actual else {
      throw TestStoreFailure(
        "\(action) was ignored (\(reason)) but changed the state:\n  before: \(expected)\n"
          + "   after: \(actual)", file: file, line: line)
    }
  }

  /// Fails if an action arrived unasserted or an effect is still in flight; then stops the store.
  func finish(file: String = #fileID, line: Int = #line) throws {
    clock.drain()
    let (pending, live) = log.withLock { ($0.pending, $0.live.values.map(\.label)) }
    defer { stop() }
    if !pending.isEmpty {
      throw TestStoreFailure(
        "\(pending.count) action(s) received but not asserted: \(pending)", file: file, line: line)
    }
    if !live.isEmpty {
      throw TestStoreFailure(
        "effect(s) still in flight at the end: \(live.sorted())", file: file, line: line)
    }
  }

  private func popPending() -> StoreEvent<State, Action>? {
    log.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
  }

  /// Sends `action` once every action effects sent was asserted, and runs what it causes.
  private func yield(_ action: Action, file: String, line: Int) throws {
    let unreceived = log.withLock { $0.pending.count }
    guard unreceived == 0 else {
      throw TestStoreFailure(
        "must receive \(unreceived) action(s) before sending \(action)", file: file, line: line)
    }
    input.yield(action)
    clock.drain()
  }

  private func assertNext(
    _ action: Action, _ update: ((inout State) throws -> Void)?, what: String,
    file: String, line: Int
  ) throws {
    guard let event = popPending() else {
      throw TestStoreFailure(
        "expected to \(what) \(action); no action was applied", file: file, line: line)
    }
    guard case .transition(let got, _, let actual, _) = event else {
      throw TestStoreFailure("expected to \(what) \(action); got \(event)", file: file, line: line)
    }
    guard got == action else {
      throw TestStoreFailure("expected to \(what) \(action); got \(got)", file: file, line: line)
    }
    var expected = state
    try update?(&expected)
    current.withLock { $0 = actual }
    guard expected == actual else {
      throw TestStoreFailure(
        "state after \(action) differs:\n  expected: \(expected)\n    actual: \(actual)",
        file: file, line: line)
    }
  }
}

/// Why a ``TestStore`` assertion failed; thrown, so any test framework reports it.
///
/// Core cannot import a test framework (it ships in the binary), so `TestStore` throws this
/// instead of recording issues. A Swift Testing or XCTest test that calls `try store.send(…)`
/// fails with the message and the caller's location.
struct TestStoreFailure: Error, CustomStringConvertible, Sendable {
  /// What was expected and what happened.
  let message: String
  /// Where the failing assertion was written.
  let file: String
  /// The line of the failing assertion.
  let line: Int

  init(_ message: String, file: String, line: Int) {
    (self.message, self.file, self.line) = (message, file, line)
  }

  var description: String { "\(file):\(line): \(message)" }
}
