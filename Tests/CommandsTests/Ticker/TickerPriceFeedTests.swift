import LoadctlCore
import Testing

@testable import LoadctlCommands

/// What a consumer saw: `price@seconds`, in order.
private func seen(_ price: Double, _ clock: VirtualClock) -> String {
  "\(TickerFormat.price(price))@\(clock.now.offset.components.seconds)"
}

/// A consumer that takes `count` values, sleeping `work` on the clock after each one; it tells
/// the reader that `count` is its limit unless `tellsLimit` is false.
private func slowConsumer(
  buffer: TickerBuffer, interval: Duration = .seconds(1), work: Duration, count: Int,
  tellsLimit: Bool = true
) -> (values: [String], report: PriceFeedReport) {
  let clock = VirtualClock()
  let values = TickerRecorder<String>()
  let task = clock.launch {
    await PriceFeed(buffer: buffer).run(
      randomSource(clock: clock, interval: interval), limit: tellsLimit ? count : nil
    ) { reader in
      var taken = 0
      while let price = await reader.next() {
        values.append(seen(price, clock))
        taken += 1
        if taken == count { return }
        try? await clock.sleep(for: work)
      }
    }.report
  }
  #expect(clock.run(limit: 10_000))
  let report = clock.launch { await task.value }
  clock.drain()
  return (values.values, syncValue(report))
}

/// The value of a task that has already finished on the test clock's executor.
/// Runs `source` through a feed with `buffer` whose consumer cancels its own task after each
/// value it gets: what it got, and what the producer did.
private func pricesUntilCancelled(
  _ buffer: TickerBuffer, _ source: some PriceFeedSource, clock: VirtualClock
) -> ([Double], PriceFeedReport) {
  let task = clock.launch {
    await PriceFeed(buffer: buffer).run(source) { reader in
      var prices: [Double] = []
      while let price = await reader.next() {
        prices.append(price)
        withUnsafeCurrentTask { $0?.cancel() }
      }
      return prices
    }
  }
  clock.drain()
  return syncValue(task)
}

private func syncValue<T: Sendable>(_ task: Task<T, Never>) -> T {
  let box = TickerRecorder<T>()
  let clock = VirtualClock()
  _ = clock.launch { box.append(await task.value) }
  clock.drain()
  guard let value = box.values.first else { preconditionFailure("the task has not finished") }
  return value
}

@Suite struct TickerPriceFeedTests {
  /// 1 s ticks: prices 103.12, 108.88, 91.68, 95.7, 100.3, 91.26, … (seed 42).
  @Test func theConsumerEndingStopsTheProducerAtOnce() {
    let clock = VirtualClock()
    let task = clock.launch {
      await PriceFeed(buffer: .default).run(randomSource(clock: clock)) { reader in
        var prices: [Double] = []
        while let price = await reader.next() {
          prices.append(price)
          if prices.count == 3 { break }
        }
        return prices
      }
    }
    clock.advance(by: .seconds(3))
    // The producer was asleep until 4 s; the consumer's end woke and stopped it right away.
    #expect(clock.pendingSleepCount == 0)
    let (prices, report) = syncValue(task)
    #expect(prices == expectedPrices(count: 3))
    #expect(report == PriceFeedReport(sourceEnd: .stopped, produced: 3, dropped: 0))
    clock.advance(by: .seconds(3600))
    #expect(clock.pendingSleepCount == 0)
  }

  @Test func cancellingTheConsumerStopsTheProducer() {
    let clock = VirtualClock()
    let task = clock.launch {
      await PriceFeed(buffer: .default).run(randomSource(clock: clock)) { reader in
        var count = 0
        while await reader.next() != nil { count += 1 }
        return count
      }
    }
    clock.advance(by: .milliseconds(2500))
    task.cancel()
    clock.drain()
    #expect(clock.pendingSleepCount == 0)
    let (count, report) = syncValue(task)
    #expect(count == 2)
    #expect(report == PriceFeedReport(sourceEnd: .stopped, produced: 2, dropped: 0))
  }

  /// The seed's mechanism on its own: when the consumer's end of the stream goes away, the
  /// stream's `onTermination` stops a producer that is asleep on the clock.
  @Test func droppingTheStreamStopsTheProducerThroughOnTermination() {
    let clock = VirtualClock()
    let termination = PriceFeedTermination()
    var (stream, continuation): (AsyncStream<Double>?, _) = AsyncStream.makeStream(of: Double.self)
    continuation.onTermination = { _ in termination.fire() }
    let sink = PriceFeedSink(continuation: continuation, gauge: PriceFeedGauge(window: 8))
    let producer = clock.launch {
      await PriceFeed.runProducer(randomSource(clock: clock), into: sink, until: termination)
    }
    clock.advance(by: .milliseconds(2500))
    #expect(sink.gauge.produced == 2)
    #expect(clock.pendingSleepCount == 1)
    #expect(stream != nil)
    stream = nil
    clock.drain()
    #expect(termination.hasFired)
    #expect(clock.pendingSleepCount == 0)
    #expect(syncValue(producer) == .stopped)
    clock.advance(by: .seconds(10))
    #expect(sink.gauge.produced == 2)
  }

  @Test func aSourceThatRunsDryEndsTheStreamAfterItsValues() {
    let clock = VirtualClock()
    let task = clock.launch {
      await PriceFeed(buffer: .unbounded).run(FixedPrices(values: [1, 2, 3])) { reader in
        var prices: [Double] = []
        while let price = await reader.next() { prices.append(price) }
        return prices
      }
    }
    clock.drain()
    let (prices, report) = syncValue(task)
    #expect(prices == [1, 2, 3])
    #expect(report == PriceFeedReport(sourceEnd: .sourceFinished, produced: 3, dropped: 0))
  }

  /// Once the consumer's task is cancelled, values still buffered are not handed out: the
  /// reader ends at the first `next()` after the cancellation, and the producer is stopped.
  /// An unpaced producer told the consumer's limit makes exactly that many values, across
  /// batches, whatever the timing: `produced` is reproducible.
  @Test func anUnpacedProducerMakesNoMoreThanTheConsumerWillTake() {
    let clock = VirtualClock()
    let source = randomSource(clock: clock, interval: .zero)
    let task = clock.launch {
      await PriceFeed(buffer: .default).run(source, limit: 1500) { reader in
        var count = 0
        while count < 1500, await reader.next() != nil { count += 1 }
        return count
      }
    }
    clock.drain()
    let (count, report) = syncValue(task)
    #expect(count == 1500)
    #expect(report.produced == 1500)
    #expect(report.dropped == 0)
  }

  @Test func aCancelledConsumerGetsNoBufferedValues() {
    let clock = VirtualClock()
    let (prices, report) = pricesUntilCancelled(
      .unbounded, FixedPrices(values: [1, 2, 3], endsAfterwards: false), clock: clock)
    #expect(prices == [1])
    #expect(report == PriceFeedReport(sourceEnd: .stopped, produced: 3, dropped: 0))
  }

  /// The same for values an unpaced feed's reader has already taken from the stream ahead of
  /// the consumer: a cancelled consumer gets none of them.
  @Test func aCancelledConsumerGetsNoValuesTakenAhead() {
    let clock = VirtualClock()
    let (prices, report) = pricesUntilCancelled(
      .newest(4), randomSource(clock: clock, interval: .zero), clock: clock)
    #expect(prices == expectedPrices(count: 1))
    #expect(report.dropped == 0)
  }

  // MARK: A slow consumer (2.5 s per value) behind a 1 s feed

  @Test func newestKeepsTheLatestValues() {
    let (values, report) = slowConsumer(buffer: .newest(2), work: .milliseconds(2500), count: 5)
    // Prices p1…p11 come at 1…11 s; the consumer takes one at 1, 3.5, 6, 8.5 and 11 s (ties go
    // to the consumer, which slept first). Each new price pushes out the oldest queued one:
    // p3, p5, p6 and p8 are never shown.
    #expect(values == ["103.12@1", "108.88@3", "95.70@6", "108.97@8", "102.76@11"])
    #expect(report.dropped == 4)
  }

  @Test func oldestKeepsTheFirstValues() {
    let (values, report) = slowConsumer(buffer: .oldest(2), work: .milliseconds(2500), count: 5)
    // A full queue refuses new prices: p5, p7, p8 and p10 are never shown.
    #expect(values == ["103.12@1", "108.88@3", "91.68@6", "95.70@8", "108.42@11"])
    #expect(report.dropped == 4)
  }

  @Test func unboundedKeepsEverything() {
    let (values, report) = slowConsumer(buffer: .unbounded, work: .milliseconds(2500), count: 5)
    let expected = expectedPrices(count: 5).map(TickerFormat.price)
    #expect(values.map { String($0.prefix { $0 != "@" }) } == expected)
    #expect(report.dropped == 0)
  }

  /// `--interval 0`: the producer waits for the consumer, in batches of the window, so even a
  /// slow consumer behind a tiny buffer loses nothing and sees the seed's exact sequence.
  @Test func anUnpacedFeedWaitsForTheConsumerAndNeverDrops() {
    let (values, report) = slowConsumer(
      buffer: .newest(4), interval: .zero, work: .seconds(1), count: 10)
    #expect(
      values == expectedPrices(count: 10).enumerated().map { "\(TickerFormat.price($1))@\($0)" })
    #expect(report.dropped == 0)
    // Batches of 4, the last cut to 2: the feed knows the consumer's limit, as in `--count 10`.
    #expect(report.produced == 10)
  }

  /// Without a limit, the reader takes each batch whole and the producer makes the next one
  /// while the consumer shows it: one batch ahead, never more, and nothing dropped.
  @Test func withoutALimitAnUnpacedFeedRunsOneBatchAhead() {
    let (values, report) = slowConsumer(
      buffer: .newest(4), interval: .zero, work: .seconds(1), count: 6, tellsLimit: false)
    #expect(
      values == expectedPrices(count: 6).enumerated().map { "\(TickerFormat.price($1))@\($0)" })
    #expect(report.dropped == 0)
    #expect(report.produced == 12)  // batch 3 was made while batch 2 was shown
  }
}
