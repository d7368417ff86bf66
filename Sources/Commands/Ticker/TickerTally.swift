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
    /// The difference from the previous tick, rounded to 6 decimals to hide binary noise
    /// (`101.27 − 100.43` is `0.8399999999999892` in binary); `nil` for the first tick.
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
    let change = last.map { Self.rounded(price - $0) }
    min = Swift.min(min ?? price, price)
    max = Swift.max(max ?? price, price)
    last = price
    sum += price
    return Tick(n: count, price: price, change: change)
  }

  /// The mean of the ticks, rounded to 6 decimals; `nil` before the first.
  package var mean: Double? {
    count == 0 ? nil : Self.rounded(sum / Double(count))
  }

  /// The `summary` object of the `end` event.
  package func summary(dropped: Int) -> JSONValue {
    let number: (Double?) -> JSONValue = { $0.map(JSONValue.double) ?? .null }
    return .object([
      ("count", .int(count)), ("min", number(min)), ("max", number(max)), ("mean", number(mean)),
      ("last", number(last)), ("dropped", .int(dropped)),
    ])
  }

  /// `x` rounded to 6 decimals (unchanged when that is beyond a double's precision).
  static func rounded(_ value: Double) -> Double {
    let scaled = value * 1e6
    guard scaled.magnitude < 1e15 else { return value }
    return scaled.rounded() / 1e6
  }
}
