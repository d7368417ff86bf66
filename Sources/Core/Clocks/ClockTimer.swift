/// A drift-free repeating timer on any clock, as an `AsyncSequence` of ticks.
///
/// A loop of `sleep(for: interval)` adds each wake-up's lateness to the next. This timer sleeps
/// until absolute deadlines `start + n × interval` (`start` is when iteration begins), so lateness
/// never accumulates. A consumer that falls behind by more than an interval gets one tick at once
/// and then continues from the next deadline in the future: it sees a gap in ``Tick/index``, not
/// a burst. Cancelling the consuming task ends the sequence quietly (`nil`, no error).
///
/// ```swift
/// for await tick in ClockTimer(interval: .seconds(1), clock: clock) {
///   print(tick.index, tick.lateness)
/// }
/// ```
public struct ClockTimer<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
  /// One tick: which deadline it was, and how late it was delivered.
  public struct Tick: Sendable {
    /// 1 for the first deadline (`start + interval`), counting every deadline, skipped or not.
    public let index: Int
    /// How long after its deadline the tick was delivered.
    public let lateness: Duration
  }

  let interval: Duration
  let clock: C

  /// Creates a timer ticking every `interval` (which must be positive) on `clock`.
  public init(interval: Duration, clock: C) {
    precondition(interval > .zero, "a timer needs a positive interval")
    self.interval = interval
    self.clock = clock
  }

  public func makeAsyncIterator() -> Iterator { Iterator(timer: self, start: clock.now) }

  /// Produces ticks by sleeping until each absolute deadline.
  public struct Iterator: AsyncIteratorProtocol {
    let timer: ClockTimer
    let start: C.Instant
    var index = 0

    public mutating func next() async -> Tick? {
      guard !Task.isCancelled else { return nil }
      index += 1
      let deadline = start.advanced(by: timer.interval * index)
      do {
        try await timer.clock.sleep(until: deadline, tolerance: nil)
      } catch {
        return nil
      }
      let now = timer.clock.now
      index += Int(deadline.duration(to: now) / timer.interval)  // skip the missed deadlines
      let due = start.advanced(by: timer.interval * index)
      return Tick(index: index, lateness: due.duration(to: now))
    }
  }
}
