/// The simulated backend's delay per request: a fixed latency plus a reproducible random jitter.
///
/// The jitter of request number *n* (its query's revision) is the *n*-th output of SplitMix64
/// seeded with `seed`, scaled to `0...jitter` in whole nanoseconds with integer arithmetic only.
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
    var system = SystemRandomNumberGenerator()
    return UInt64.random(in: 0...((1 << 53) - 1), using: &system)
  }

  /// The delay of request number `number` (1 for the first query).
  package func delay(forRequest number: Int) -> Duration {
    guard jitter > .zero else { return latency }
    let range = UInt64(clamping: nanoseconds(jitter)) &+ 1
    let random = SplitMix64.output(seed: seed, index: UInt64(clamping: number))
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

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit generator that is one add and one mix.
///
/// Its *n*-th output is `mix(seed + n × γ)` with γ = 0x9E3779B97F4A7C15, so any output can be
/// computed directly from its index; ``next()`` is the usual sequential form of the same thing.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
  private var state: UInt64

  package init(seed: UInt64) { state = seed }

  package mutating func next() -> UInt64 {
    state &+= Self.gamma
    return Self.mix(state)
  }

  /// The `index`-th output (1-based) of the generator seeded with `seed`.
  package static func output(seed: UInt64, index: UInt64) -> UInt64 {
    mix(seed &+ index &* gamma)
  }

  private static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
