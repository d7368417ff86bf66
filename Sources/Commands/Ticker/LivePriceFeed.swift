import LoadctlCore
import Synchronization

/// A source that produces on its own schedule (a timer, a pipe, a terminal) and cannot wait for
/// a slow consumer without its prices going stale.
package protocol LivePriceSource: Sendable {
  /// Yields prices into `sink` until the source runs dry or fails, the sink refuses a value, or
  /// the task is cancelled.
  ///
  /// - Returns: ``PriceFeedEnd/stopped`` whenever the sink refused a value or the task was
  ///   cancelled, however the source itself ended then.
  func produce(into sink: LivePriceSink) async -> PriceFeedEnd
}

/// The `PriceFeed.stream()` pattern (an `AsyncStream` feed), with its producer as a structured child task.
///
/// The SwiftUI original starts its producer with an unstructured `Task {}` and stops it with
/// `continuation.onTermination = { _ in producer.cancel() }`. Here the producer is a child of
/// ``run(_:consume:)``'s task group, and the same `onTermination` is what stops it:
///
/// ```
/// run ─┬─ consume(prices)                         the caller's reader, in the group's own task
///      ├─ source.produce(into: sink)              the producer
///      └─ watcher: await termination ─► group cancelled
/// ```
///
/// `onTermination` fires once, whichever way the stream ends: the consumer returned (`run` then
/// finishes the stream, because an `AsyncStream` something still references never ends by
/// itself), the consumer's task was cancelled inside `next()`, or the source ran dry and
/// finished it. It wakes the watcher, and once a child has returned `run` cancels the group: a
/// producer asleep on the clock ends at once. `run` returns only after the producer has
/// returned, so once the caller prints `producer_stopped` no value can be produced any more.
///
/// The stream's buffer policy (``TickerBuffer``) decides what is lost when the consumer falls
/// behind; every value is counted, so the consumer knows when it has caught up and what was
/// dropped.
package struct LivePriceFeed: Sendable {
  package let buffer: TickerBuffer

  package init(buffer: TickerBuffer) {
    self.buffer = buffer
  }

  /// Runs `source` as the producer beside `consume` as the consumer.
  ///
  /// - Parameters:
  ///   - source: Produces the prices.
  ///   - consume: Reads prices (a reader it makes from ``LivePrices``, on any task) until it is
  ///     done; when it returns, the producer is stopped.
  /// - Returns: What `consume` returned, and what the producer did.
  package func run<Consumed>(
    _ source: some LivePriceSource, consume: (LivePrices) async -> Consumed
  ) async -> (consumed: Consumed, report: PriceFeedReport) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: LivePrice.self, bufferingPolicy: buffer.streamPolicy)
    let counts = LiveFeedCounts()
    let termination = StreamTermination()
    continuation.onTermination = { _ in termination.fire() }
    let sink = LivePriceSink(continuation: continuation, counts: counts)

    return await withTaskGroup(of: PriceFeedEnd?.self) { group in
      group.addTask {
        let end = await source.produce(into: sink)
        // The consumer drains what is buffered, then sees the end of the stream.
        if end != .stopped { continuation.finish() }
        return end
      }
      group.addTask {
        await termination.wait()
        return nil
      }
      let consumed = await consume(LivePrices(stream: stream, counts: counts))
      continuation.finish()
      var end = PriceFeedEnd.stopped
      for await result in group {
        if let result { end = result }
        group.cancelAll()
      }
      let report = PriceFeedReport(
        sourceEnd: end, produced: counts.produced, dropped: counts.dropped)
      return (consumed, report)
    }
  }
}

/// A price on its way from a live producer to its consumer, with its place among all the prices
/// produced (1 for the first): what the consumer skipped before it is what was dropped.
package struct LivePrice: Sendable {
  let price: Double
  let index: Int
}

/// The producer's end of a live feed: the stream's continuation, with every value counted.
package struct LivePriceSink: Sendable {
  let continuation: AsyncStream<LivePrice>.Continuation
  let counts: LiveFeedCounts

  /// Offers `price` to the consumer.
  ///
  /// The run's tasks share one serial executor, and a producer whose source always has a value
  /// ready (a flooding pipe or command) would never suspend: every 64 values it gives the
  /// consumer, and the rest of the run, a turn.
  ///
  /// - Returns: `false` once the stream has ended (its consumer is gone): stop producing.
  @discardableResult
  package func yield(_ price: Double) async -> Bool {
    let index = counts.willYield()
    if index % 64 == 0 { await Task.yield() }
    switch continuation.yield(LivePrice(price: price, index: index)) {
    case .enqueued:
      return true
    case .dropped:
      counts.didDrop()
      return true
    case .terminated:
      counts.didRefuse()
      return false
    @unknown default:
      counts.didRefuse()
      return false
    }
  }

  /// Values offered so far.
  package var produced: Int { counts.produced }
}

/// The consumer's end of a live feed, to be read on any task: one ``LivePriceReader`` at a time.
package struct LivePrices: Sendable {
  let stream: AsyncStream<LivePrice>
  let counts: LiveFeedCounts

  package func makeReader() -> LivePriceReader {
    LivePriceReader(iterator: stream.makeAsyncIterator(), counts: counts)
  }
}

/// The stream's iterator, reading the counts as it goes.
package struct LivePriceReader: PriceReader {
  private var iterator: AsyncStream<LivePrice>.Iterator
  private let counts: LiveFeedCounts
  /// No value is in flight: the next ``next()`` waits for the producer.
  private var mayWait = true
  /// Prices received so far.
  private var taken = 0
  /// The prices dropped before the last one received: those produced before it and never
  /// received. Drops the producer made after the consumer took it (a price handed to a waiting
  /// consumer is taken then, however late the consumer runs) belong to the next one.
  package private(set) var dropped = 0

  init(iterator: AsyncStream<LivePrice>.Iterator, counts: LiveFeedCounts) {
    self.iterator = iterator
    self.counts = counts
  }

  package nonisolated(nonsending) mutating func next() async -> Double? {
    guard let value = await iterator.next(isolation: nil) else { return nil }
    mayWait = counts.received() == 0
    dropped = value.index - 1 - taken
    taken += 1
    return value.price
  }

  package nonisolated(nonsending) mutating func nextReady() async -> Double? {
    mayWait ? nil : await next()
  }
}

/// The values between a live producer and its consumer: offered, dropped, and still in flight.
///
/// `AsyncStream` cannot say whether a value is ready, so the producer adds one before each
/// yield (taking it back if the stream discarded a value or refused it) and the consumer takes
/// one for each value it receives; none left means its next read will wait.
final class LiveFeedCounts: Sendable {
  private let inFlight = Atomic<Int>(0)
  private let producedCount = Atomic<Int>(0)
  private let droppedCount = Atomic<Int>(0)

  var produced: Int { producedCount.load(ordering: .relaxed) }
  var dropped: Int { droppedCount.load(ordering: .relaxed) }

  /// A value is about to be offered.
  /// - Returns: Its place among all the values produced (1 for the first).
  func willYield() -> Int {
    let index = producedCount.add(1, ordering: .relaxed).newValue
    inFlight.add(1, ordering: .sequentiallyConsistent)
    return index
  }

  /// The stream discarded a value (the new one or an old one).
  func didDrop() {
    droppedCount.add(1, ordering: .relaxed)
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// The stream had ended and refused the value.
  func didRefuse() {
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// The consumer received a value.
  /// - Returns: The values still in flight.
  func received() -> Int {
    inFlight.subtract(1, ordering: .sequentiallyConsistent).newValue
  }
}

/// A one-shot signal from a stream's `onTermination` to the watcher that stops its producer.
///
/// `onTermination` is a synchronous callback on whichever thread ended the stream; it cannot
/// cancel a child task of a group. So it fires this, and the watcher waiting here returns.
final class StreamTermination: Sendable {
  private struct State {
    var fired = false
    var watcher: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())

  /// Whether the stream has terminated.
  var hasFired: Bool { state.withLock { $0.fired } }

  /// Records the termination and wakes the watcher; later calls do nothing.
  func fire() {
    let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.fired else { return nil }
      state.fired = true
      defer { state.watcher = nil }
      return state.watcher
    }
    watcher?.resume()
  }

  /// Returns once the stream has terminated, or when the waiting task is cancelled.
  func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ready = state.withLock { state -> Bool in
          if state.fired || Task.isCancelled { return true }
          state.watcher = continuation
          return false
        }
        if ready { continuation.resume() }
      }
    } onCancel: {
      let watcher = state.withLock { state in
        defer { state.watcher = nil }
        return state.watcher
      }
      watcher?.resume()
    }
  }
}
