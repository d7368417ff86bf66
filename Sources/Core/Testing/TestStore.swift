import LoadctlCore
import Testing

/// Exhaustive reducer tests, as TCA's `TestStore` writes them: every state change, every action
/// effects send back and every effect's end is asserted, and nothing is ever silent.
///
/// The store runs on the ``VirtualClock``'s executor, so after each `send`, `receive` or clock
/// move everything that can run has run: an action an effect sent is already waiting to be
/// received, or it was not sent at all — no timeouts, no yields.
///
/// A failed assertion is recorded as a Swift Testing issue at the line of the assertion (in an
/// XCTest test, as an `XCTFail` whose message starts with that line), and the test goes on. A
/// store that goes away with received actions not asserted or effects in flight records a
/// failure too, whether ``finish(sourceLocation:)`` was called or not, and so does an effect that
/// throws an error no `catch:` handles. With ``exhaustivity`` `.off`, the store checks only what
/// the test asserts and skips the rest.
///
/// With the `Counter` of LoadctlCore's "Writing a flow" article, which saves its count a second
/// after the last change:
///
/// ```swift
/// let clock = VirtualClock()
/// let store = TestStore(
///   initialState: Counter.State(), clock: clock, reducer: Counter(clock: clock).reduce)
/// store.send(.increment) { $0.count = 1 }
/// clock.advance(by: .seconds(1))
/// store.receive(.saved(1)) { $0.saved = 1 }
/// ```
public final class TestStore<State: Sendable & Equatable, Action: Sendable>: Sendable {
  struct Log {
    var pending: [StoreEvent<State, Action>] = []
    var effectEvents: [StoreEvent<State, Action>] = []
    var live: [Int: EffectInfo] = [:]
    /// Where the step that started each live effect was written.
    var startedAt: [Int: SourceLocation] = [:]
    var handles: [Int: EffectHandle] = [:]
    /// Effects a ``TestStoreTask`` cancelled, so that one still queued does no work.
    var cancelled: Set<Int> = []
    /// Failures found while effects ran, recorded at the next step of the test.
    var failures: [(String, SourceLocation)] = []
    /// Where the step running now was written.
    var location: SourceLocation
    /// Effects started by the action being sent; `nil` outside a send.
    var capture: [Int]?
    /// Whether the last action applied came from the test rather than from an effect.
    var lastFromTest = false
    var checked = false
    var exhaustivity: Exhaustivity
    /// Every happening the store applied and its time, for ``TestStore/replay(_:lateness:sourceLocation:)``.
    var happenings: [(happening: StoreHappening<Action>, time: Duration)] = []
  }

  /// Tells the log of every happening the store applies.
  private struct Journal: StoreJournal {
    let log: Locked<Log>
    let clock: VirtualClock

    func record(_ happening: StoreHappening<Action>, step: () -> Void) {
      let time = clock.now.offset
      log.withLock { $0.happenings.append((happening, time)) }
      step()
    }
  }

  /// The clock the store's effects must use (or whose executor they run on).
  public let clock: VirtualClock
  let log: Locked<Log>
  let current: Locked<State>
  let input: AsyncStream<Action>.Continuation
  private let task: Task<StoreResult<State>, Never>
  private let createdAt: SourceLocation

  /// Starts a store on `clock`'s executor with `initialState` and `reducer`.
  ///
  /// - Parameters:
  ///   - exhaustivity: Whether every change and every received action must be asserted.
  ///   - sourceLocation: Where failures found when the store goes away are recorded.
  public init(
    initialState: State, clock: VirtualClock = VirtualClock(),
    exhaustivity: Exhaustivity = .on, sourceLocation: SourceLocation = #_sourceLocation,
    reducer: @escaping Store<State, Action>.Reducer
  ) {
    self.clock = clock
    self.createdAt = sourceLocation
    self.current = Locked(initialState)
    let log = Locked(Log(location: sourceLocation, exhaustivity: exhaustivity))
    self.log = log
    let (inputs, input) = AsyncStream<Action>.makeStream()
    self.input = input
    let store = Store(initialState: initialState) { state, action in
      reducer(&state, action).mapRuns { operation, handler in
        (Self.tracked(operation, log: log), handler ?? Self.uncaught(log: log))
      }
    }
    task = clock.launch {
      await store.run(inputs: inputs, stopWhenIdle: false, journal: Journal(log: log, clock: clock))
      { event in
        log.withLock { Self.note(event, in: &$0) }
      }
    }
  }

  deinit {
    if !log.withLock(\.checked) {
      clock.drain()
      check(at: createdAt)
    }
    stop()
  }

  /// The state after the last asserted action.
  public var state: State { current.withLock { $0 } }

  /// Whether every change and every received action must be asserted; may change mid-test.
  public var exhaustivity: Exhaustivity {
    get { log.withLock(\.exhaustivity) }
    set { log.withLock { $0.exhaustivity = newValue } }
  }

  /// Effects running or queued now.
  public var inFlight: [EffectInfo] {
    log.withLock { $0.live.values.sorted { $0.serial < $1.serial } }
  }

  /// Effect lifecycle events so far (started, queued, dropped, finished), oldest first.
  public var effectEvents: [StoreEvent<State, Action>] { log.withLock(\.effectEvents) }

  /// Sends `action` and asserts the state change `update` makes to the expected state.
  ///
  /// Actions that effects sent must be received first; with exhaustivity off they are skipped.
  /// - Returns: The effects `action` started, to cancel or to wait for.
  @discardableResult
  public func send(
    _ action: Action, _ update: ((inout State) throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> TestStoreTask {
    let serials = yield(action, at: sourceLocation)
    defer { reportFailures() }
    switch popPending() {
    case .transition(_, _, let actual, _):
      checkState(after: "send(\(action))", update, actual: actual, at: sourceLocation)
    case .ignored(_, let reason, let actual):
      current.withLock { $0 = actual }
      fail("\(action) was ignored (\(reason)); assert that with sendIgnored", at: sourceLocation)
    default:
      fail("send(\(action)): the store did not apply it (its run has ended)", at: sourceLocation)
    }
    return task(for: serials, sent: "\(action)")
  }

  /// Sends `action` and asserts that the reducer ignored it with `reason`, leaving the state as
  /// it was.
  @discardableResult
  public func sendIgnored(
    _ action: Action, reason: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> TestStoreTask {
    let serials = yield(action, at: sourceLocation)
    assertIgnored(popPending(), "send(\(action))", reason: reason, at: sourceLocation)
    reportFailures()
    return task(for: serials, sent: "\(action)")
  }

  /// Asserts that effects sent an action for which `isMatch` holds next, and the state change it
  /// made: receiving by case, for actions that are not `Equatable` or carry values the test
  /// does not know (`Result<_, any Error>`).
  ///
  /// ```swift
  /// store.receive({ if case .response(.failure) = $0 { true } else { false } }) {
  ///   $0.isLoading = false
  /// }
  /// ```
  /// - Parameter timeout: How long to wait, in real time, for an action from work outside the
  ///   clock's executor (a fake that sleeps on a real clock); by default, not at all.
  public func receive(
    _ isMatch: (Action) -> Bool, timeout: Duration = .zero,
    _ update: ((inout State) throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    receive(isMatch, "an action that matches", update, timeout: timeout, at: sourceLocation)
  }

  /// Asserts that effects sent next an action from which `extract` takes `value` (a case and
  /// its payload), and the state change it made.
  ///
  /// ```swift
  /// store.receive({ if case .response(.success(let n)) = $0 { n } else { nil } }, 42)
  /// ```
  public func receive<Value: Equatable>(
    _ extract: (Action) -> Value?, _ value: Value, timeout: Duration = .zero,
    _ update: ((inout State) throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    receive(
      { extract($0) == value }, "an action with \(value)", update, timeout: timeout,
      at: sourceLocation)
  }

  /// Fails if an action arrived unasserted or an effect is still in flight (with exhaustivity
  /// on); then stops the store, cancelling what is left.
  ///
  /// The same check runs when the store goes away; calling `finish` records it here.
  public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    clock.drain()
    check(at: sourceLocation)
    stop()
  }

  private func stop() {
    task.cancel()
    clock.drain()
  }

  /// The failures, or skipped work, the end of a test finds.
  private func check(at location: SourceLocation) {
    reportFailures()
    let (pending, live, startedAt, exhaustivity) = log.withLock { log in
      log.checked = true
      let live = log.live.values.sorted { $0.serial < $1.serial }
      return (log.pending, live, log.startedAt, log.exhaustivity)
    }
    switch exhaustivity {
    case .on:
      if !pending.isEmpty {
        fail(
          "\(pending.count) received action(s) not asserted:\n"
            + pending.map { "  \(Self.action(of: $0))" }.joined(separator: "\n"), at: location)
      }
      for info in live {
        fail(
          "effect \(info.label) started here is still in flight at the end of the test: cancel "
            + "it (the task send returned), or advance the clock until it ends",
          at: startedAt[info.serial] ?? location)
      }
    case .off(let showSkipped):
      let skipped =
        pending.map { "received \(Self.action(of: $0))" } + live.map { "in flight: \($0.label)" }
      if showSkipped, !skipped.isEmpty { skip(skipped.joined(separator: "\n"), at: location) }
    }
  }

  /// Sends `action` after skipping, or failing on, actions not received yet.
  /// - Returns: The effects it started.
  private func yield(_ action: Action, at location: SourceLocation) -> [Int] {
    clock.drain()
    let unreceived = log.withLock { log in
      defer { log.pending.removeAll() }
      return log.pending
    }
    if let last = unreceived.last {
      current.withLock { $0 = Self.state(after: last) }
      let list = unreceived.map { "  \(Self.action(of: $0))" }.joined(separator: "\n")
      switch exhaustivity {
      case .on:
        fail(
          "must receive \(unreceived.count) action(s) before sending \(action):\n\(list)",
          at: location)
      case .off(true):
        skip("skipped received action(s) before sending \(action):\n\(list)", at: location)
      case .off(false): break
      }
    }
    log.withLock { log in
      log.location = location
      log.capture = []
    }
    input.yield(action)
    clock.drain()
    return log.withLock { log in
      defer { log.capture = nil }
      return log.capture ?? []
    }
  }

  func receive(
    _ isMatch: (Action) -> Bool, _ what: String, _ update: ((inout State) throws -> Void)?,
    timeout: Duration = .zero, at location: SourceLocation
  ) {
    clock.drain()
    if timeout > .zero { waitForAction(timeout) }
    log.withLock { $0.location = location }
    defer { reportFailures() }
    var skipped: [String] = []
    while let event = popPending() {
      let action = Self.action(of: event)
      guard isMatch(action) else {
        current.withLock { $0 = Self.state(after: event) }
        if exhaustivity == .on {
          fail("expected to receive \(what); received \(action)", at: location)
          return
        }
        skipped.append("  \(action)")
        continue
      }
      if exhaustivity == .off(showSkippedAssertions: true), !skipped.isEmpty {
        skip("skipped received action(s):\n" + skipped.joined(separator: "\n"), at: location)
      }
      if case .ignored(_, let reason, let actual) = event {
        current.withLock { $0 = actual }
        fail("received \(action), but it was ignored (\(reason))", at: location)
        return
      }
      checkState(
        after: "receive(\(action))", update, actual: Self.state(after: event), at: location)
      return
    }
    fail(
      "expected to receive \(what); no action was received"
        + (skipped.isEmpty ? "" : " (skipped:\n\(skipped.joined(separator: "\n")))"),
      at: location)
  }

  /// Waits, in real time, until an action arrives, no effect is left, or `timeout` has passed,
  /// running what work outside the executor (a real sleep, another thread) enqueues meanwhile.
  private func waitForAction(_ timeout: Duration) {
    let deadline = ContinuousClock.now + timeout
    while log.withLock({ $0.pending.isEmpty && !$0.live.isEmpty }) {
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero else { return }
      _ = clock.executor.waitForWork(timeout: left)
      clock.drain()
    }
  }

  func assertIgnored(
    _ event: StoreEvent<State, Action>?, _ what: String, reason: String,
    at location: SourceLocation
  ) {
    guard let event else {
      return fail("\(what): expected it ignored (\(reason)); nothing happened", at: location)
    }
    let expected = state
    current.withLock { $0 = Self.state(after: event) }
    guard case .ignored(_, let got, let actual) = event, got == reason else {
      return fail("\(what): expected it ignored (\(reason)); got \(event)", at: location)
    }
    if expected != actual {
      fail(
        "\(what) was ignored (\(reason)) but changed the state (− before, + after):\n"
          + Self.describe(expected, actual), at: location)
    }
  }

  /// Compares `actual` with the expected state, under the store's exhaustivity.
  private func checkState(
    after what: String, _ update: ((inout State) throws -> Void)?, actual: State,
    at location: SourceLocation
  ) {
    let previous = current.withLock { state in
      defer { state = actual }
      return state
    }
    var expected = previous
    do {
      try update?(&expected)
    } catch {
      return fail("the state closure of \(what) threw \(error)", at: location)
    }
    guard expected != actual else { return }
    switch exhaustivity {
    case .on:
      fail(
        "state after \(what) differs (− expected, + actual):\n" + Self.describe(expected, actual),
        at: location)
    case .off(let showSkipped):
      var asserted = actual
      try? update?(&asserted)
      if asserted != actual {
        fail(
          "state after \(what) differs (− expected, + actual):\n"
            + Self.describe(asserted, actual), at: location)
      } else if showSkipped {
        skip(
          "state changes not asserted after \(what) (− without, + with them):\n"
            + Self.describe(expected, actual), at: location)
      }
    }
  }

  private func task(for serials: [Int], sent action: String) -> TestStoreTask {
    TestStoreTask(
      cancel: { [self] in
        let handles = log.withLock { log in
          log.cancelled.formUnion(serials)
          return serials.compactMap { log.handles[$0] }
        }
        for handle in handles { handle.cancel() }
        clock.drain()
        reportFailures()
      },
      inFlight: { [self] in
        clock.drain()
        return log.withLock { log in serials.compactMap { log.live[$0]?.label } }
      },
      fail: { [self] message, location in
        fail("the effects of send(\(action)) \(message)", at: location)
        reportFailures()
      })
  }

  /// Takes the replayed actions as asserted, the state as the last one left it.
  func settleReplay() {
    clock.drain()
    let last = log.withLock { log in
      defer { log.pending.removeAll() }
      return log.pending.last
    }
    if let last { current.withLock { $0 = Self.state(after: last) } }
    reportFailures()
  }

  /// Cancels every effect in flight, as a run's cancellation does.
  func cancelInFlight() {
    let handles = log.withLock { log in
      log.cancelled.formUnion(log.live.keys)
      return Array(log.handles.values)
    }
    for handle in handles { handle.cancel() }
    clock.drain()
  }

  func popPending() -> StoreEvent<State, Action>? {
    log.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
  }

  func fail(_ message: String, at location: SourceLocation) {
    recordFailure(message, at: location)
  }

  /// Records what exhaustivity `.off(showSkippedAssertions: true)` skipped, as a known issue.
  private func skip(_ message: String, at location: SourceLocation) {
    withKnownIssue(sourceLocation: location) {
      Issue.record(Comment(rawValue: message), sourceLocation: location)
    }
  }

  /// Records the failures effects left since the last step.
  func reportFailures() {
    let failures = log.withLock { log in
      defer { log.failures.removeAll() }
      return log.failures
    }
    for (message, location) in failures { fail(message, at: location) }
  }
}
