import LoadctlCore

/// `--interval 0`: the random prices, pulled by the consumer one at a time.
///
/// With no clock to keep, a price is made when the consumer asks for one: as fast as it can be
/// shown, never dropped, and exactly as many as are shown (`--count 5` makes 5).
package struct RandomPricePull: PricePull {
  private var prices: RandomPrices

  package init(prices: RandomPrices) {
    self.prices = prices
  }

  package nonisolated(nonsending) mutating func next() async -> Double? { prices.next() }

  package nonisolated(nonsending) mutating func nextReady() async -> Double? { prices.next() }
}

/// `--interval D`: the random prices on a drift-free ``ClockTimer``, the first after one
/// interval. A live source: the timer cannot wait for a slow consumer, so the buffer policy
/// applies.
package struct TimedRandomPrices<C: Clock>: LivePriceSource where C.Duration == Duration {
  package let prices: RandomPrices
  package let interval: Duration
  package let clock: C

  package init(prices: RandomPrices, interval: Duration, clock: C) {
    self.prices = prices
    self.interval = interval
    self.clock = clock
  }

  package func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    var prices = prices
    for await _ in ClockTimer(interval: interval, clock: clock) {
      guard await sink.yield(prices.next()) else { break }
    }
    return .stopped
  }
}

/// Uniform random prices in whole cents between two bounds, from a seeded generator: the
/// `PriceFeed` pattern's demo feed.
///
/// The sequence is fixed by the seed and documented (docs/ticker.md shows it in Python): with
/// `lo = ceil(min × 100)` and `hi = floor(max × 100)`, each price is
/// `(lo + next() % (hi − lo + 1)) / 100`, where `next()` is ``SeededGenerator`` (SplitMix64).
/// The modulo's bias is below (hi − lo + 1) / 2⁶⁴: invisible.
package struct RandomPrices: Sendable, Equatable {
  /// The lowest price, in cents.
  package let lowCents: Int
  /// The highest price, in cents.
  package let highCents: Int
  private var generator: SeededGenerator

  /// The largest bound accepted, so that cents stay exact in a `Double`.
  package static let limit = 1e12

  /// Why a range cannot be used.
  package enum RangeProblem: Error, Sendable, Equatable {
    /// `min` is not below `max`.
    case notIncreasing
    /// A bound is beyond ±``limit``.
    case tooLarge
    /// Fewer than two whole-cent prices fit between the bounds.
    case tooNarrow
  }

  /// - Throws: ``RangeProblem`` when the bounds do not give at least two prices.
  package init(seed: UInt64, min: Double, max: Double) throws(RangeProblem) {
    guard min < max else { throw .notIncreasing }
    guard abs(min) <= Self.limit, abs(max) <= Self.limit else { throw .tooLarge }
    let low = Self.cents(min, roundingUp: true)
    let high = Self.cents(max, roundingUp: false)
    guard high > low else { throw .tooNarrow }
    lowCents = low
    highCents = high
    generator = SeededGenerator(seed: seed)
  }

  /// The next price.
  package mutating func next() -> Double {
    let span = UInt64(highCents - lowCents + 1)
    return Double(lowCents + Int(generator.next() % span)) / 100
  }

  /// A bound in cents, rounded inwards; `90` is 9000 and `0.1` is 10 despite binary noise.
  private static func cents(_ value: Double, roundingUp: Bool) -> Int {
    let scaled = value * 100
    let nearest = scaled.rounded()
    if abs(scaled - nearest) < 1e-6 { return Int(nearest) }
    return Int(roundingUp ? scaled.rounded(.up) : scaled.rounded(.down))
  }
}
