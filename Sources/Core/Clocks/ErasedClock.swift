/// Any clock that measures in `Duration`, as one concrete type.
///
/// APIs generic over their clock (``ClockTimer``) take a flow's `any Clock<Duration>` through
/// it. Its instants are offsets from the moment it was made; sleeping until one sleeps on the
/// wrapped clock until the same moment.
///
/// ```swift
/// let clock: any Clock<Duration> = VirtualClock()
/// for await tick in ClockTimer(interval: .seconds(1), clock: clock) { print(tick.index) }
/// ```
public struct ErasedClock: Clock, Sendable {
  /// An offset from the moment the clock was erased.
  public typealias Instant = VirtualClock.Instant

  private let elapsed: @Sendable () -> Duration
  private let sleepUntil: @Sendable (Duration, Duration?) async throws -> Void
  public let minimumResolution: Duration

  /// Wraps `clock`.
  public init<C: Clock<Duration>>(_ clock: C) {
    let start = clock.now
    elapsed = { start.duration(to: clock.now) }
    sleepUntil = { offset, tolerance in
      try await clock.sleep(until: start.advanced(by: offset), tolerance: tolerance)
    }
    minimumResolution = clock.minimumResolution
  }

  public var now: Instant { Instant(offset: elapsed()) }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try await sleepUntil(deadline.offset, tolerance)
  }
}

extension ClockTimer where C == ErasedClock {
  /// Creates a timer ticking every `interval` (which must be positive) on an existential clock.
  public init(interval: Duration, clock: any Clock<Duration>) {
    self.init(interval: interval, clock: ErasedClock(clock))
  }
}
