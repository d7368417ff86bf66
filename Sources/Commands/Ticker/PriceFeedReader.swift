/// The consumer's end of a price feed: the stream's iterator, keeping the gauge's contract.
///
/// Every value taken must be counted, and once the consumer has caught up it must let an unpaced
/// producer start its next batch before waiting (see ``PriceFeedGauge``). Reading through this
/// type does both, so a consumer cannot forget either; it only decides what to do when
/// ``caughtUp`` (the ticker flushes its output).
///
/// From a batched producer (the unpaced feed) the reader takes a complete batch from the stream
/// in one go, value by value, and hands the values out one by one from its own buffer: the
/// producer makes the next batch meanwhile, in parallel, without ever contending with the
/// consumer for the stream's lock. It takes no more than ``limit`` says, so the producer
/// makes no batch the consumer will not read. Live sources are read one value at a time.
package struct PriceFeedReader {
  private var iterator: AsyncStream<Double>.Iterator
  private let gauge: PriceFeedGauge
  private let termination: PriceFeedTermination
  /// Values taken from the stream ahead of the consumer (part of a batch), and the next one.
  private var ahead: [Double] = []
  private var aheadIndex = 0
  /// Values left in flight when the last one was taken from the stream.
  private var leftInStream = 0
  /// Values handed out so far.
  private var taken = 0

  /// The most values the consumer will take in all (``PriceFeed/run(_:limit:consume:)``'s
  /// `limit`, kept by the gauge so the producer sees the same number); `nil` for no limit.
  package var limit: Int? { gauge.limit }

  /// Whether the last value left nothing in flight: the next ``next()`` will wait.
  package private(set) var caughtUp = false

  /// Values the buffer policy had discarded when the last value was taken from the stream.
  package private(set) var dropped = 0

  init(stream: AsyncStream<Double>, gauge: PriceFeedGauge, termination: PriceFeedTermination) {
    self.iterator = stream.makeAsyncIterator()
    self.gauge = gauge
    self.termination = termination
  }

  /// The next price, or `nil` when the stream has ended (source finished or cancelled).
  ///
  /// Once the consumer's task is cancelled, values still buffered (in the stream or here) are
  /// not handed out.
  package mutating func next() async -> Double? {
    if aheadIndex < ahead.count {
      guard !termination.consumerWasCancelled else { return nil }
      let price = ahead[aheadIndex]
      aheadIndex += 1
      taken += 1
      caughtUp = aheadIndex == ahead.count && leftInStream == 0
      return price
    }
    if caughtUp {
      await gauge.awaitBatch()
    }
    guard let price = await iterator.next(isolation: nil), !termination.consumerWasCancelled
    else {
      return nil
    }
    taken += 1
    leftInStream = gauge.received()
    dropped = gauge.dropped
    if leftInStream > 0, gauge.isBatched {
      await takeBatch()
    }
    caughtUp = aheadIndex == ahead.count && leftInStream == 0
    return price
  }

  /// Takes the rest of a batched producer's batch (what the consumer will use of it), and lets
  /// the producer start the next one if the consumer will want it.
  private mutating func takeBatch() async {
    ahead.removeAll(keepingCapacity: true)
    aheadIndex = 0
    let wanted = limit.map { $0 - taken } ?? .max
    while leftInStream > 0, ahead.count < wanted {
      guard let price = await iterator.next(isolation: nil) else { break }
      ahead.append(price)
      leftInStream = gauge.received()
    }
    if leftInStream == 0, ahead.count < wanted {
      gauge.releaseForNextBatch()
    }
  }
}
