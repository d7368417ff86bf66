/// `--from` lines as a pull source (a regular file, or any input on virtual time): the one
/// timed-line pipeline with ``PriceLine`` as its parser.
///
/// These inputs can wait for the consumer, so nothing is dropped and a file of any size is shown
/// completely; lines that need no wait are taken as one batch (``nextReady()``), and a line with
/// a time prefix waits on the run's clock.
extension TimedLineReader: PriceReader, PricePull where Value == Double {}

/// `--from` a pipe or a terminal on real time: prices forwarded as their lines are read. A live
/// source: if the consumer falls behind, the buffer policy decides what is lost.
package struct LivePriceLines<Prices: AsyncSequence<Double, Never> & Sendable>: LivePriceSource {
  package let prices: Prices

  package init(prices: Prices) {
    self.prices = prices
  }

  package func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    for await price in prices {
      guard await sink.yield(price) else { return .stopped }
    }
    return Task.isCancelled ? .stopped : .sourceFinished
  }
}

/// The `--from` line grammar after the shared prefix: one decimal number.
package enum PriceLine {
  /// Parses one line's text (after the shared grammar took its prefix) as a price.
  ///
  /// Decimal numbers only, such as `101.25`, `-3`, `1e3`; `nan`, `inf` and hex floats are
  /// refused, because no feed means them, and so is a magnitude above ``maxMagnitude``.
  package static func parse(_ text: String) -> Result<Double, LineProblem> {
    guard ValueValidator.isDecimal(text), let value = Double(text), value.isFinite else {
      return .failure(LineProblem("not a price: '\(text)' (expected a number such as 101.25)"))
    }
    guard value.magnitude <= maxMagnitude else {
      return .failure(
        LineProblem("price out of range: '\(text)' (at most 1e15 either way)"))
    }
    return .success(value)
  }

  /// The largest price taken, either way: changes, sums and means of a run's prices stay finite
  /// (a change of two prices near 1e308 was infinite, and printed as the first tick's `null`).
  package static let maxMagnitude = 1e15
}
