import LoadctlCore
import Testing

@testable import LoadctlCommands

/// The random feed, announcing each value it produces on the same output as the ticks, so one
/// timeline shows production, consumption and `producer_stopped`.
private struct AnnouncingSource: LivePriceSource {
  let base: TimedRandomPrices<VirtualClock>
  let output: EventOutput

  func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    var prices = base.prices
    for await _ in ClockTimer(interval: base.interval, clock: base.clock) {
      let price = prices.next()
      output.emit("produced", [("price", .double(price))], text: nil)
      guard await sink.yield(price) else { return .stopped }
    }
    return .stopped
  }
}

/// Runs the flow over a live source on a test clock until nothing sleeps; returns its end.
private func runToEnd(
  _ settings: TickerFlow.Settings, _ source: some LivePriceSource, capture: CapturedTickerOutput,
  clock: VirtualClock
) -> FlowEnd? {
  let end = TickerRecorder<FlowEnd>()
  let flow = TickerFlow(buffer: settings.buffer, count: settings.count, source: .live(source))
  _ = clock.launch { end.append(await runTicker(flow, capture: capture, clock: clock)) }
  #expect(clock.run(limit: 100_000))
  return end.values.first
}

@Suite struct TickerFlowTests {
  @Test func countedTicksThenProducerStoppedThenTheSummary() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let flow = TickerFlow.Settings(buffer: .default, count: 3)
    let end = try #require(
      runToEnd(flow, randomSource(clock: clock), capture: capture, clock: clock))
    #expect(
      capture.describe(["n", "price", "change", "reason", "produced", "dropped"]) == [
        "tick n=1 price=103.12 change=null @1000",
        "tick n=2 price=108.88 change=5.76 @2000",
        "tick n=3 price=91.68 change=-17.2 @3000",
        "producer_stopped reason=consumer_finished produced=3 dropped=0 @3000",
      ])
    #expect(end.status == .completed)
    #expect(
      end.fields.first?.1
        == .object([
          ("count", 3), ("min", 91.68), ("max", 108.88), ("mean", 101.226667), ("last", 91.68),
          ("dropped", 0),
        ]))
    #expect(end.summary == "3 ticks  min 91.68  max 108.88  mean 101.226667  last 91.68  dropped 0")
  }

  /// On one timeline: every value is produced before `producer_stopped`, none after it, even
  /// with an hour of virtual time left to produce in.
  @Test func noValueIsProducedAfterProducerStopped() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let source = AnnouncingSource(base: randomSource(clock: clock), output: capture.output)
    let flow = TickerFlow.Settings(buffer: .default, count: 3)
    _ = runToEnd(flow, source, capture: capture, clock: clock)
    clock.advance(by: .seconds(3600))
    #expect(clock.pendingSleepCount == 0)
    #expect(
      capture.describe(["n", "price", "reason"]) == [
        "produced price=103.12 @1000", "tick n=1 price=103.12 @1000",
        "produced price=108.88 @2000", "tick n=2 price=108.88 @2000",
        "produced price=91.68 @3000", "tick n=3 price=91.68 @3000",
        "producer_stopped reason=consumer_finished @3000",
      ])
  }

  @Test func tenThousandVirtualTicksDoNotDrift() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let flow = TickerFlow.Settings(buffer: .default, count: 10_000)
    let source = randomSource(clock: clock, interval: .milliseconds(10))
    _ = runToEnd(flow, source, capture: capture, clock: clock)
    let ticks = capture.events.filter { $0["event"] == "tick" }
    #expect(ticks.count == 10_000)
    let late = ticks.enumerated().filter { index, tick in
      tick["elapsed_ms"] != .double(Double(index + 1) * 10)
    }
    #expect(late.map(\.offset) == [])
    #expect(ticks.last?["elapsed_ms"] == 100_000)
    #expect(clock.now.offset == .seconds(100))
  }

  /// Deadlines are absolute: a consumer that is sometimes 2.5 intervals late does not delay
  /// production, so the 10,000th price still comes at exactly 100 s.
  @Test func aLateConsumerDoesNotMakeTheFeedDrift() {
    let clock = VirtualClock()
    let arrivals = TickerRecorder<Duration>()
    let source = randomSource(clock: clock, interval: .milliseconds(10))
    let task = clock.launch {
      await LivePriceFeed(buffer: .default).run(source) { prices in
        var reader = prices.makeReader()
        var taken = 0
        while await reader.next() != nil {
          taken += 1
          if taken == 10_000 { break }
          if taken % 100 == 0 { try? await clock.sleep(for: .milliseconds(25)) }
        }
        arrivals.append(clock.now.offset)
      }.report
    }
    #expect(clock.run(limit: 100_000))
    #expect(arrivals.values == [.seconds(100)])
    task.cancel()
  }

  @Test func cancellingTheRunStopsTheProducerWithReasonCancelled() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let flow = TickerFlow(buffer: .default, count: nil, source: .live(randomSource(clock: clock)))
    let task = clock.launch { await runTicker(flow, capture: capture, clock: clock) }
    clock.advance(by: .milliseconds(2500))
    task.cancel()
    clock.drain()
    #expect(clock.pendingSleepCount == 0)
    #expect(
      capture.describe(["n", "reason", "produced"]) == [
        "tick n=1 @1000", "tick n=2 @2000", "producer_stopped reason=cancelled produced=2 @2500",
      ])
  }

  /// A burst the consumer could not keep up with: 1 is taken alone, then 4 pushes 2 and 3 out
  /// of a one-value buffer before the consumer takes again. Drops are reported as counted when
  /// a value is taken, before its tick: "so far, 2 were lost".
  @Test func droppedValuesAreReportedBeforeTheNextTick() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let flow = TickerFlow.Settings(buffer: .newest(1), count: 2)
    let source = FixedPrices(values: [1, 2, 3, 4], endsAfterwards: false, pauseAfterFirst: true)
    let end = try #require(runToEnd(flow, source, capture: capture, clock: clock))
    #expect(
      capture.describe(["n", "price", "count", "total", "buffer", "reason", "dropped"]) == [
        "tick n=1 price=1 @0", "dropped count=2 total=2 buffer=newest:1 @0", "tick n=2 price=4 @0",
        "warning @0",
        "producer_stopped reason=consumer_finished dropped=2 @0",
      ])
    #expect(end.fields.first?.1["dropped"] == 2)
  }

  @Test func fromLinesShowsGoodLinesOnTimeAndReportsBadOnes() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let rejected = TickerRecorder<String>()
    let lines = LineSource.lines(["101", "+1s 102.5", "abc", "# a comment", "", "@3s 100"])
    let input = TimedLines(
      lines: lines, clock: LineClock(clock: clock, elapsed: { clock.now.offset }),
      parse: PriceLine.parse, reject: { rejected.append($0.description) })
    let flow = TickerFlow.Settings(buffer: .default, count: nil)
    _ = runToEnd(flow, LivePriceLines(prices: input), capture: capture, clock: clock)
    #expect(
      capture.describe(["n", "price", "change", "reason"]) == [
        "tick n=1 price=101 change=null @0", "tick n=2 price=102.5 change=1.5 @1000",
        "tick n=3 price=100 change=-2.5 @3000", "producer_stopped reason=source_finished @3000",
      ])
    #expect(rejected.values == ["line 3: not a price: 'abc' (expected a number such as 101.25)"])
  }

  /// `--interval 0 --count N`: the consumer pulls exactly N prices; `produced` is N.
  @Test func anUnpacedFeedProducesExactlyTheCount() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let prices = randomPrices()
    let flow = TickerFlow(
      buffer: .newest(4), count: 1500, source: .pull { RandomPricePull(prices: prices) })
    let ends = TickerRecorder<FlowEnd>()
    _ = clock.launch { ends.append(await runTicker(flow, capture: capture, clock: clock)) }
    clock.drain()
    let end = try #require(ends.values.first)
    let events = capture.events
    #expect(events.filter { $0["event"] == "tick" }.count == 1500)
    #expect(
      capture.describe(["reason", "produced", "dropped"]).last
        == "producer_stopped reason=consumer_finished produced=1500 dropped=0 @0")
    #expect(end.fields.first?.1["count"] == 1500)
  }

  /// Once the run is cancelled, values still buffered in the stream are not shown: here the
  /// store's task is cancelled while it writes its first tick, a batch of one price, and two
  /// more values came into the stream after that batch was taken.
  @Test func aCancelledRunShowsNoBufferedValues() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock) { event, _, _ in
      if event == .instant("tick") { withUnsafeCurrentTask { $0?.cancel() } }
    }
    let source = FixedPrices(values: [1, 2, 3], endsAfterwards: false, pauseAfterFirst: true)
    let flow = TickerFlow(buffer: .unbounded, count: nil, source: .live(source))
    _ = clock.launch { await runTicker(flow, capture: capture, clock: clock) }
    clock.drain()
    #expect(clock.pendingSleepCount == 0)
    #expect(
      capture.describe(["n", "reason", "produced"]) == [
        "tick n=1 @0", "producer_stopped reason=cancelled produced=3 @0",
      ])
  }

  /// The same lines, pulled (a regular file, virtual time): a bad line is reported when it is
  /// read, before the price read with it is shown; `@` and `+` still wait on the clock.
  @Test func pulledLinesAreShownOnTimeAndBadOnesReportedAsRead() {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let lines = LineSource.lines(["101", "+1s 102.5", "abc", "# a comment", "", "@3s 100"])
    let flow = TickerFlow(
      buffer: .default, count: nil,
      source: .pull {
        TimedLineReader(
          lines: lines.makeAsyncIterator(),
          clock: LineClock(clock: clock, elapsed: { clock.now.offset }), parse: PriceLine.parse,
          reject: { capture.output.emit("input_rejected", [("line", .int($0.line))], text: nil) })
      })
    _ = clock.launch { _ = await runTicker(flow, capture: capture, clock: clock) }
    #expect(clock.run())
    #expect(
      capture.describe(["n", "price", "line", "reason", "produced"]) == [
        "tick n=1 price=101 @0", "input_rejected line=3 @1000", "tick n=2 price=102.5 @1000",
        "tick n=3 price=100 @3000", "producer_stopped reason=source_finished produced=3 @3000",
      ])
  }

  @Test func textModeShowsArrowsAndTheSummary() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock, json: false)
    let flow = TickerFlow.Settings(buffer: .default, count: nil)
    let source = FixedPrices(values: [100, 100.5, 100.5, 99.25])
    let end = try #require(runToEnd(flow, source, capture: capture, clock: clock))
    #expect(
      capture.lines == [
        "  0.000s  ticker  #1  100.00", "  0.000s  ticker  #2  100.50  ▲ 0.50",
        "  0.000s  ticker  #3  100.50  = 0.00", "  0.000s  ticker  #4  99.25  ▼ 1.25",
        "  0.000s  ticker  producer stopped (source finished): 4 produced, 0 dropped",
      ])
    #expect(end.summary == "4 ticks  min 99.25  max 100.50  mean 100.0625  last 99.25  dropped 0")
  }
}

/// Prices far from any price are refused, so that changes, sums and means stay finite: 1e308
/// followed by -1e308 made an infinite change, printed as the first tick's `null`.
@Suite struct PriceRangeTests {
  @Test(arguments: ["1e15", "-1e15", "0", "101.25"])
  func pricesUpTo1e15AreTaken(text: String) {
    #expect((try? PriceLine.parse(text).get()) != nil)
  }

  @Test(arguments: ["1e308", "-1.1e15", "1e16"])
  func largerOnesAreRefused(text: String) {
    guard case .failure(let problem) = PriceLine.parse(text) else {
      Issue.record("\(text) was taken")
      return
    }
    #expect(problem.message.hasPrefix("price out of range: '\(text)'"))
  }
}
