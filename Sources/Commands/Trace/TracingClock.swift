import LoadctlCore

/// A clock that reports every sleep to a ``TraceRecorder``, then behaves exactly like its base.
///
/// Sleeps are the waits that explain async behaviour (a debounce, a backoff, a timer tick), so
/// `--trace` shows them as slices on the track of the effect that slept, found through
/// ``EffectContext``.
struct TracingClock<Base: Clock<Duration>>: Clock {
  typealias Instant = Base.Instant

  let base: Base
  let recorder: TraceRecorder
  let elapsed: @Sendable () -> Duration

  var now: Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let start = elapsed()
    let effect = EffectContext.current
    do {
      try await base.sleep(until: deadline, tolerance: tolerance)
      recorder.sleep(from: start, to: elapsed(), cancelled: false, effect: effect)
    } catch {
      recorder.sleep(from: start, to: elapsed(), cancelled: true, effect: effect)
      throw error
    }
  }
}

extension TraceRecorder {
  /// Wraps `clock` so its sleeps are recorded.
  func tracing(_ clock: any Clock<Duration>, elapsed: @escaping @Sendable () -> Duration)
    -> any Clock<Duration>
  {
    func wrap<C: Clock<Duration>>(_ base: C) -> any Clock<Duration> {
      TracingClock(base: base, recorder: self, elapsed: elapsed)
    }
    return wrap(clock)
  }
}
