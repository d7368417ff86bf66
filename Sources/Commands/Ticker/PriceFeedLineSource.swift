/// `--from FILE|-`: prices read from input lines, one number per line, as they arrive.
///
/// The lines come through the shared input grammar (``ScriptedInput``): blank lines and `#`
/// comments are skipped, `+DURATION`/`@DURATION` prefixes replay a recorded rhythm on the clock,
/// and a line that is not a number is reported with its number and skipped. End of input ends
/// the feed.
///
/// A pipe or a terminal is live: its lines are forwarded as soon as they are read, and if the
/// consumer falls behind the buffer policy decides what is lost. A regular file is not live: it
/// can wait, so with `waitsForConsumer` a line is read only when the consumer has room, and a
/// file of any size is shown completely.
package struct PriceFeedLineSource<Prices: AsyncSequence<Double, Never> & Sendable>: PriceFeedSource
{
  package let prices: Prices
  package let waitsForConsumer: Bool

  package init(prices: Prices, waitsForConsumer: Bool) {
    self.prices = prices
    self.waitsForConsumer = waitsForConsumer
  }

  package func produce(into sink: PriceFeedSink) async -> PriceFeedSourceEnd {
    var iterator = prices.makeAsyncIterator()
    while true {
      if waitsForConsumer {
        guard await sink.waitForRoom() else { return .stopped }
      }
      guard let price = await iterator.next(isolation: #isolation) else {
        return Task.isCancelled ? .stopped : .sourceFinished
      }
      guard sink.yield(price) else { return .stopped }
    }
  }
}

/// The `--from` line grammar after the shared prefix: one decimal number.
package enum PriceLine {
  /// Parses one line's text (after the shared grammar took its prefix) as a price.
  ///
  /// Decimal numbers only, such as `101.25`, `-3`, `1e3`; `nan`, `inf` and hex floats are
  /// refused, because no feed means them.
  package static func parse(_ text: String) -> Result<Double, InputError> {
    let decimal = text.allSatisfy { "0123456789+-.eE".contains($0) }
    guard decimal, let value = Double(text), value.isFinite else {
      return .failure(
        InputError(line: 0, message: "not a price: '\(text)' (expected a number such as 101.25)"))
    }
    return .success(value)
  }
}
