/// The producer's end of a price feed: the stream's continuation, with every value counted.
///
/// Sources yield through this instead of the bare continuation so that the consumer can tell
/// when it has caught up, and so that drops and refusals are counted where they happen.
package struct PriceFeedSink: Sendable {
  let continuation: AsyncStream<Double>.Continuation
  package let gauge: PriceFeedGauge

  /// Offers `price` to the consumer.
  ///
  /// - Returns: `false` once the stream has ended (its consumer is gone): stop producing.
  @discardableResult
  package func yield(_ price: Double) -> Bool {
    gauge.willYield()
    switch continuation.yield(price) {
    case .enqueued:
      return true
    case .dropped:
      gauge.didDrop()
      return true
    case .terminated:
      gauge.didRefuse()
      return false
    @unknown default:
      gauge.didRefuse()
      return false
    }
  }

  /// For line sources that can wait (see ``TickerBuffer``): returns at once unless the window
  /// is full, then when the consumer has taken half of it.
  ///
  /// - Returns: `false` when the producer was cancelled meanwhile.
  package func waitForRoom() async -> Bool {
    await gauge.waitForRoom()
  }

  /// For the unpaced feed, after each batch of ``PriceFeedGauge/window`` values: returns when
  /// the consumer has taken them all (see ``PriceFeedGauge``).
  ///
  /// - Returns: `false` when the producer was cancelled meanwhile.
  package func waitForDrain() async -> Bool {
    await gauge.waitForDrain()
  }
}
