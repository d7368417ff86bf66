/// The simulated backend's delay per request: a fixed latency plus a reproducible random jitter.
///
/// The jitter of request number *n* (its query's revision) is the *n*-th output of SplitMix64
/// seeded with `seed` (``SeededGenerator/output(seed:index:)``), scaled to `0...jitter` in whole nanoseconds with integer arithmetic only.
/// It depends on nothing but the seed and the number, never on the order in which concurrent
/// requests happen to draw, so the same input and `--seed` give the same delays on every run and
/// every platform. `docs/search.md` gives the algorithm.
package struct SearchLatency: Sendable, Equatable {
  package let latency: Duration
  package let jitter: Duration
  package let seed: UInt64

  package init(latency: Duration, jitter: Duration = .zero, seed: UInt64 = 0) {
    self.latency = latency
    self.jitter = jitter
    self.seed = seed
  }

  /// A seed from the system's generator, small enough (below 2^53) to survive any JSON reader.
  package static func randomSeed() -> UInt64 {
    SeededGenerator.systemSeed()
  }

  /// The delay of request number `number` (1 for the first query).
  package func delay(forRequest number: Int) -> Duration {
    guard jitter > .zero else { return latency }
    let range = UInt64(clamping: nanoseconds(jitter)) &+ 1
    let random = SeededGenerator.output(seed: seed, index: UInt64(clamping: number))
    // The high word of random × range is uniform enough in 0..<range, and exact on any platform.
    let extra = random.multipliedFullWidth(by: range).high
    return latency + .nanoseconds(Int64(clamping: extra))
  }

  private func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? .max : scaled &+ attoseconds / 1_000_000_000
  }
}
