import LoadctlCore
import Testing

@testable import LoadctlCommands

/// What a consumer saw: `price@seconds`, in order.
private func seen(_ price: Double, _ clock: VirtualClock) -> String {
  "\(TickerFormat.price(price))@\(clock.now.offset.components.seconds)"
}

/// A consumer that takes `count` values from a live feed with `buffer`, sleeping `work` on the
/// clock after each one.
private func slowConsumer(
  buffer: TickerBuffer, interval: Duration = .seconds(1), work: Duration, count: Int
) -> (values: [String], report: PriceFeedReport) {
  let clock = VirtualClock()
  let values = TickerRecorder<String>()
  let task = clock.launch {
    await LivePriceFeed(buffer: buffer).run(randomSource(clock: clock, interval: interval)) {
      live in
      var reader = live.makeReader()
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

@Suite struct TickerFeedTests {
  // MARK: Live: an AsyncStream producer stops with its consumer

  /// 1 s ticks: prices 103.12, 108.88, 91.68, 95.7, 100.3, 91.26, … (seed 42).
  @Test func theConsumerEndingStopsTheProducerAtOnce() {
    let clock = VirtualClock()
    let task = clock.launch {
      await LivePriceFeed(buffer: .default).run(randomSource(clock: clock)) { live in
        var reader = live.makeReader()
        var prices: [Double] = []
        while let price = await reader.next() {
          prices.append(price)
          if prices.count == 3 { break }
        }
        return prices
      }
    }
    clock.advance(by: .seconds(3))
    // The producer was asleep until 4 s; the stream's end woke the watcher, which stopped it.
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
      await LivePriceFeed(buffer: .default).run(randomSource(clock: clock)) { live in
        var reader = live.makeReader()
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

  /// The watcher on its own: `onTermination` wakes it however the stream ends.
  @Test func onTerminationWakesTheWatcher() {
    let clock = VirtualClock()
    let termination = StreamTermination()
    var (stream, continuation): (AsyncStream<Double>?, _) = AsyncStream.makeStream(of: Double.self)
    continuation.onTermination = { _ in termination.fire() }
    let watcher = clock.launch { await termination.wait() }
    clock.drain()
    #expect(!termination.hasFired)
    #expect(stream != nil)
    stream = nil
    clock.drain()
    #expect(termination.hasFired)
    syncValue(watcher)
  }

  @Test func aSourceThatRunsDryEndsTheStreamAfterItsValues() {
    let clock = VirtualClock()
    let task = clock.launch {
      await LivePriceFeed(buffer: .unbounded).run(FixedPrices(values: [1, 2, 3])) { live in
        var reader = live.makeReader()
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

  /// The reader knows what is already in the stream: after the first value, the two queued
  /// behind it are ready, and then nothing is.
  @Test func theReaderTakesOnlyWhatIsReady() {
    let clock = VirtualClock()
    let task = clock.launch {
      await LivePriceFeed(buffer: .unbounded).run(FixedPrices(values: [1, 2, 3])) { live in
        var reader = live.makeReader()
        let first = await reader.next()
        var ready: [Double?] = []
        for _ in 0..<3 { ready.append(await reader.nextReady()) }
        return [first] + ready
      }
    }
    clock.drain()
    // 1 went straight to the waiting consumer; 2 and 3 were queued behind it.
    #expect(syncValue(task).consumed == [1, 2, 3, nil])
  }

  // MARK: Live: a slow consumer (2.5 s per value) behind a 1 s feed

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

  // MARK: Pull: the consumer iterates the source

  /// `--interval 0`: a price is made when the consumer asks, so even a slow consumer sees the
  /// seed's exact sequence, and exactly as many are made as are taken.
  @Test func theUnpacedFeedMakesWhatIsTakenAndNeverDrops() {
    let clock = VirtualClock()
    let task = clock.launch {
      var reader = RandomPricePull(prices: randomPrices())
      var values: [String] = []
      while values.count < 10, let price = await reader.next() {
        values.append(seen(price, clock))
        try? await clock.sleep(for: .seconds(1))
      }
      return (values, reader.dropped, await reader.nextReady())
    }
    #expect(clock.run())
    let (values, dropped, ready) = syncValue(task)
    #expect(
      values == expectedPrices(count: 10).enumerated().map { "\(TickerFormat.price($1))@\($0)" })
    #expect(dropped == 0)
    #expect(ready == expectedPrices(count: 11).last)
  }

  /// Lines are ready up to the next wait: a timed line is held for `next()`, which waits for
  /// it; a bad line is reported when it is read.
  @Test func priceLinesAreReadyUntilTheNextWait() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let lines = LineSource.lines(["101.5", "+1s 102.25", "not-a-price", "+1s 99.75"])
    let task = clock.launch {
      var reader = TimedLineReader(
        lines: lines.makeAsyncIterator(),
        clock: LineClock(clock: clock, elapsed: { clock.now.offset }), parse: PriceLine.parse,
        reject: { capture.output.emit("input_rejected", [("line", .int($0.line))], text: nil) })
      var taken: [String] = []
      while let price = await reader.next() {
        capture.output.emit("tick", [("price", .double(price))], text: nil)
        taken.append("\(price) then \(await reader.nextReady().map { "\($0)" } ?? "a wait")")
      }
      return taken
    }
    #expect(clock.run())
    #expect(
      syncValue(task) == ["101.5 then a wait", "102.25 then a wait", "99.75 then a wait"])
    #expect(
      capture.describe(["price", "line"]) == [
        "tick price=101.5 @0", "tick price=102.25 @1000", "input_rejected line=3 @1000",
        "tick price=99.75 @2000",
      ])
  }
}
