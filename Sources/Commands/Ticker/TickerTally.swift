import LoadctlCore

/// What the ticker has shown so far, and the summary printed at the end.
///
/// Its one transition, ``record(_:)``, is pure and tested without any concurrency; the ticker's
/// reducer applies it to each price of a batch.
package struct TickerTally: Sendable, Equatable {
  /// One shown price.
  package struct Tick: Sendable, Equatable {
    /// 1 for the first tick shown.
    package var n: Int
    package var price: Double
    /// The difference from the previous tick, rounded to hide binary noise (`101.27 − 100.43` is
    /// `0.8399999999999892` in binary): to 6 decimals, fewer where the prices are so large that
    /// a double holds fewer (see ``rounded(_:scale:)``); `nil` for the first tick.
    package var change: Double?
  }

  package private(set) var count = 0
  package private(set) var min: Double?
  package private(set) var max: Double?
  package private(set) var last: Double?
  package private(set) var sum = 0.0

  package init() {}

  /// Records `price` as the next tick.
  package mutating func record(_ price: Double) -> Tick {
    count += 1
    let change = last.map {
      Self.rounded(price - $0, scale: Swift.max(price.magnitude, $0.magnitude))
    }
    min = Swift.min(min ?? price, price)
    max = Swift.max(max ?? price, price)
    last = price
    sum += price
    return Tick(n: count, price: price, change: change)
  }

  /// The mean of the ticks, rounded as a change is; `nil` before the first.
  package var mean: Double? {
    guard count > 0, let min, let max else { return nil }
    return Self.rounded(sum / Double(count), scale: Swift.max(min.magnitude, max.magnitude))
  }

  /// The `summary` object of the `end` event.
  package func summary(dropped: Int) -> JSONValue {
    let number: (Double?) -> JSONValue = { $0.map(JSONValue.double) ?? .null }
    return .object([
      ("count", .int(count)), ("min", number(min)), ("max", number(max)), ("mean", number(mean)),
      ("last", number(last)), ("dropped", .int(dropped)),
    ])
  }

  /// `value`, computed from numbers of magnitude up to `scale`, rounded to the decimals that a
  /// double holds exactly at that magnitude — 15 significant digits in all, at most 6 decimals:
  /// a change between prices near 1e12 keeps 2 (`-0.01`, where 6 kept the noise: `-0.01001`).
  static func rounded(_ value: Double, scale: Double) -> Double {
    var digits = 0
    var magnitude = scale
    while magnitude >= 1, digits < 16 {
      magnitude /= 10
      digits += 1
    }
    var factor = 1.0
    for _ in 0..<Swift.max(0, Swift.min(6, 15 - digits)) { factor *= 10 }
    let scaled = value * factor
    guard scaled.magnitude < 1e15 else { return value }
    return scaled.rounded() / factor
  }
}
