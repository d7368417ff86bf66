/// Virtual time: a clock that moves only when its driver says so — tests, and `--clock virtual`.
///
/// Code under test runs on the clock's ``executor`` (``launch(_:)`` or the test kit's
/// `TestStore` do this). Every call that moves time first drains that executor, so each task has
/// reached its sleep; then it wakes sleepers one deadline at a time, in deadline order and, for
/// equal deadlines, in the order they started sleeping, and drains again after each wake-up.
/// When ``advance(by:)`` returns, every sleeper whose deadline passed has resumed and run to its
/// next suspension.
/// A sleep to a deadline already reached (a zero-length sleep) waits as any other does, until
/// the next move of time wakes it (`advance()`, by zero, is enough), as with TCA's `TestClock`.
///
/// ```swift
/// let clock = VirtualClock()
/// let task = clock.launch { try? await clock.sleep(for: .seconds(1)); return "woke" }
/// clock.advance(by: .seconds(1))
/// #expect(await task.value == "woke")  // already finished: no yields, no waiting
/// ```
public final class VirtualClock: Clock, Sendable {
  /// A point on the virtual timeline, as an offset from its start.
  public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    /// Time since the clock was created.
    public var offset: Duration

    /// Creates an instant `offset` after the clock's start.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` later, saturating at the latest (or earliest) a `Duration` holds:
    /// virtual time can be asked to go further than that (a million retries of a long backoff),
    /// and must not trap.
    public func advanced(by duration: Duration) -> Instant {
      let sum = offset.attoseconds.addingReportingOverflow(duration.attoseconds)
      guard sum.overflow else { return Instant(offset: offset + duration) }
      return Instant(offset: duration > .zero ? Self.latest : Self.earliest)
    }

    /// The latest and earliest offsets a `Duration` holds.
    static let latest = Duration(attoseconds: .max)
    static let earliest = Duration(attoseconds: .min)
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "\(offset)" }
  }

  private struct Sleeper {
    var continuation: CheckedContinuation<Void, any Error>?
    var cancelled = false
  }

  /// A sleeper's place in the wake-up order: earliest deadline first, then first to sleep.
  private struct Entry: Comparable {
    var deadline: Instant
    var order: UInt64
    static func < (lhs: Entry, rhs: Entry) -> Bool {
      lhs.deadline != rhs.deadline ? lhs.deadline < rhs.deadline : lhs.order < rhs.order
    }
  }

  private struct State {
    var now = Instant(offset: .zero)
    var nextOrder: UInt64 = 0
    var sleepers: [UInt64: Sleeper] = [:]
    /// Every sleeper's entry; a cancelled sleeper's entry stays until it reaches the top.
    var queue = MinHeap<Entry>()
    var waitingCount = 0

    /// Drops entries whose sleeper is gone, then returns the earliest registered one (its
    /// continuation may still be about to be set).
    mutating func earliest() -> Entry? {
      while let top = queue.min, sleepers[top.order] == nil { _ = queue.popMin() }
      return queue.min
    }
  }

  private let state = Locked(State())

  /// The executor that code driven by this clock must run on.
  public let executor = ManualExecutor()

  /// Creates a clock at offset zero with its own executor.
  public init() {}

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  /// The number of tasks sleeping on this clock.
  public var pendingSleepCount: Int { state.withLock { $0.waitingCount } }

  /// The earliest deadline any task sleeps until, if one does.
  package var nextDeadline: Instant? {
    state.withLock { state in
      state.earliest().flatMap { state.sleepers[$0.order]?.continuation == nil ? nil : $0.deadline }
    }
  }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    // A deadline already reached waits too, as with TCA's `TestClock`: until time next moves.
    let order: UInt64 = state.withLock { state in
      state.nextOrder += 1
      state.sleepers[state.nextOrder] = Sleeper()
      state.queue.insert(Entry(deadline: deadline, order: state.nextOrder))
      return state.nextOrder
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow: Bool = state.withLock { state in
          guard state.sleepers[order]?.cancelled == false else {
            state.sleepers[order] = nil
            return true
          }
          state.sleepers[order]?.continuation = continuation
          state.waitingCount += 1
          return false
        }
        if resumeNow { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
        guard let sleeper = state.sleepers[order] else { return nil }
        if let continuation = sleeper.continuation {
          state.sleepers[order] = nil
          state.waitingCount -= 1
          return continuation
        }
        state.sleepers[order]?.cancelled = true
        return nil
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline is reached.
  public func advance(by duration: Duration = .zero) {
    advance(to: now.advanced(by: duration))
  }

  /// Moves time to `target` (never backwards), waking sleepers one deadline at a time.
  public func advance(to target: Instant) {
    executor.drain()
    while wakeNext(notAfter: target) { executor.drain() }
    state.withLock { state in
      if target > state.now { state.now = target }
    }
    executor.drain()
  }

  /// Advances to each next deadline until no task sleeps on the clock.
  ///
  /// - Parameter limit: A safety bound on wake-ups, so a timer that never ends cannot hang a test.
  /// - Returns: `true` when no sleeper is left, `false` when `limit` was reached first.
  @discardableResult
  public func run(limit: Int = 1_000_000) -> Bool {
    executor.drain()
    var wakes = 0
    while wakes < limit, wakeNext(notAfter: nil) {
      executor.drain()
      wakes += 1
    }
    return pendingSleepCount == 0
  }

  /// Runs queued work without moving time.
  public func drain() { executor.drain() }

  /// Starts `operation` on the clock's executor and runs it up to its first suspension.
  ///
  /// The returned task is the caller's to await or cancel: the one task Core creates outside a
  /// task group, as a test body has no structured scope on the manual executor.
  public func launch<T: Sendable>(
    _ operation: sending @escaping () async -> T
  ) -> Task<T, Never> {
    let task = Task(executorPreference: executor, operation: operation)
    executor.drain()
    return task
  }

  /// Wakes all sleepers sharing the earliest deadline (if not after `limit`), in sleep order.
  /// - Returns: Whether any sleeper woke.
  private func wakeNext(notAfter limit: Instant?) -> Bool {
    let woken: [CheckedContinuation<Void, any Error>] = state.withLock { state in
      guard let first = state.earliest(), state.sleepers[first.order]?.continuation != nil,
        limit.map({ first.deadline <= $0 }) ?? true
      else { return [] }
      var due: [CheckedContinuation<Void, any Error>] = []
      while let top = state.earliest(), top.deadline == first.deadline,
        let continuation = state.sleepers[top.order]?.continuation
      {
        _ = state.queue.popMin()
        state.sleepers[top.order] = nil
        state.waitingCount -= 1
        due.append(continuation)
      }
      if first.deadline > state.now { state.now = first.deadline }
      return due
    }
    for continuation in woken { continuation.resume() }
    return !woken.isEmpty
  }
}

/// A binary min-heap: the virtual clock's queue of deadlines, O(log n) per sleeper.
struct MinHeap<Element: Comparable> {
  private var items: [Element] = []

  /// The smallest element, if any.
  var min: Element? { items.first }

  mutating func insert(_ element: Element) {
    items.append(element)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popMin() -> Element? {
    guard !items.isEmpty else { return nil }
    items.swapAt(0, items.count - 1)
    let smallest = items.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smaller = parent
      if left < items.count, items[left] < items[smaller] { smaller = left }
      if right < items.count, items[right] < items[smaller] { smaller = right }
      guard smaller != parent else { return smallest }
      items.swapAt(parent, smaller)
      parent = smaller
    }
  }
}
