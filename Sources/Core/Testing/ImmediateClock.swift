import LoadctlCore

/// A clock on which every sleep ends at once, moving `now` to its deadline: for tests that
/// do not care how long an effect waits, only that it waits.
///
/// A sleep still suspends once, as with TCA's `ImmediateClock`, so work queued before it runs
/// first. A cancelled task's sleep throws `CancellationError`.
///
/// ```swift
/// let clock = ImmediateClock()
/// try await clock.sleep(for: .seconds(5))  // returns at once
/// #expect(clock.now.offset == .seconds(5))
/// ```
public final class ImmediateClock: Clock, Sendable {
  /// An offset from the clock's start.
  public typealias Instant = VirtualClock.Instant

  private let current = Locked(Instant(offset: .zero))

  /// Creates a clock at offset zero.
  public init() {}

  public var now: Instant { current.withLock { $0 } }
  public var minimumResolution: Duration { .zero }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { $0 = max($0, deadline) }
    await Task.yield()
    try Task.checkCancellation()
  }
}
