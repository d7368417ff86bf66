/// The consumer's end of a price feed: the stream's iterator, keeping the gauge's contract.
///
/// Every value taken must be counted, and once the consumer has caught up it must let an unpaced
/// producer start its next batch before waiting (see ``PriceFeedGauge``). Reading through this
/// type does both, so a consumer cannot forget either; it only decides what to do when
/// ``caughtUp`` (the ticker flushes its output).
package struct PriceFeedReader {
  private var iterator: AsyncStream<Double>.Iterator
  private let gauge: PriceFeedGauge
  private let termination: PriceFeedTermination

  /// Whether the last value left nothing in flight: the next ``next()`` will wait.
  package private(set) var caughtUp = false

  init(stream: AsyncStream<Double>, gauge: PriceFeedGauge, termination: PriceFeedTermination) {
    self.iterator = stream.makeAsyncIterator()
    self.gauge = gauge
    self.termination = termination
  }

  /// Values the buffer policy has discarded so far.
  package var dropped: Int { gauge.dropped }

  /// The next price, or `nil` when the stream has ended (source finished or cancelled).
  ///
  /// Once the consumer's task is cancelled, values still buffered are not handed out: the
  /// stream's `next()` cancels the stream at once in a cancelled task (its cancellation handler
  /// runs before it takes a value), which fires `onTermination(.cancelled)`, so checking that
  /// here, an atomic load, is `Task.isCancelled` without its cost per value.
  package mutating func next() async -> Double? {
    if caughtUp {
      await gauge.awaitBatch()
    }
    guard let price = await iterator.next(isolation: nil), !termination.wasCancelled else {
      return nil
    }
    caughtUp = gauge.received() == 0
    return price
  }
}
