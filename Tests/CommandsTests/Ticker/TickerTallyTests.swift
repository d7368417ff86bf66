import LoadctlCore
import Testing

@testable import LoadctlCommands

@Suite struct TickerTallyTests {
  @Test func recordsTicksWithRoundedChangesAndASummary() {
    var tally = TickerTally()
    let ticks = [100.43, 101.27, 101.27, 90.1].map { tally.record($0) }
    #expect(ticks.map(\.n) == [1, 2, 3, 4])
    // 101.27 − 100.43 is 0.8399999999999892 in binary.
    #expect(ticks.map(\.change) == [nil, 0.84, 0, -11.17])
    #expect(tally.count == 4)
    #expect(tally.min == 90.1)
    #expect(tally.max == 101.27)
    #expect(tally.last == 90.1)
    #expect(tally.mean == 98.2675)
    #expect(
      tally.summary(dropped: 7).serialized
        == #"{"count":4,"min":90.1,"max":101.27,"mean":98.2675,"last":90.1,"dropped":7}"#)
  }

  /// Near 1e12 a double holds cents but not 6 decimals: the change keeps what it holds (it
  /// printed `-0.01001`, binary noise, for prices one cent apart).
  @Test func changesOfLargePricesKeepTheDecimalsADoubleHolds() {
    var tally = TickerTally()
    let ticks = [999_999_999_999.99, 1e12, 999_999_999_999.99].map { tally.record($0) }
    #expect(ticks.map(\.change) == [nil, 0.01, -0.01])
    #expect(tally.mean == 999_999_999_999.99)
    var small = TickerTally()
    #expect([0.000001, 0.000003].map { small.record($0) }.last?.change == 0.000002)
  }

  @Test func anEmptyTallyHasNullStatistics() {
    let tally = TickerTally()
    #expect(
      tally.summary(dropped: 0).serialized
        == #"{"count":0,"min":null,"max":null,"mean":null,"last":null,"dropped":0}"#)
    #expect(TickerFormat.summary(tally, dropped: 0) == "no ticks  dropped 0")
  }

  @Test(arguments: [
    (101.27, "101.27"), (101.2, "101.20"), (101, "101.00"), (-5, "-5.00"), (-0.0, "0.00"),
    (0.001234, "0.001234"), (1e16, "1e+16"), (123_456.789, "123456.789"),
  ])
  func pricesHaveAtLeastTwoDecimals(value: Double, text: String) {
    #expect(TickerFormat.price(value) == text)
  }

  @Test func tickTextShowsTheDirectionOfTheChange() {
    let style = Style(enabled: false)
    let tick = { (n: Int, price: Double, change: Double?) in
      TickerFormat.tick(TickerTally.Tick(n: n, price: price, change: change), style: style)
    }
    #expect(tick(1, 100.43, nil) == "#1  100.43")
    #expect(tick(3, 101.27, 0.84) == "#3  101.27  ▲ 0.84")
    #expect(tick(4, 99, -2.27) == "#4  99.00  ▼ 2.27")
    #expect(tick(5, 99, 0) == "#5  99.00  = 0.00")
    let colored = TickerFormat.tick(
      TickerTally.Tick(n: 2, price: 1, change: -1), style: Style(enabled: true))
    #expect(colored == "#2  1.00  \u{1B}[31m▼ 1.00\u{1B}[0m")
  }

  // MARK: --buffer

  @Test(arguments: [
    ("newest:1024", TickerBuffer.newest(1024)), ("oldest:1", .oldest(1)),
    ("unbounded", .unbounded),
  ])
  func bufferPoliciesParse(text: String, policy: TickerBuffer) throws {
    #expect(try TickerBuffer.parse(text) == policy)
    #expect(policy.description == text)
  }

  @Test(arguments: [
    ("newest", "invalid value 'newest' for '--buffer' (use newest:N, oldest:N or unbounded)"),
    ("latest:5", "invalid value 'latest:5' for '--buffer' (use newest:N, oldest:N or unbounded)"),
    ("newest:0", "invalid size '0' in '--buffer newest:0' (must be a whole number, 1 or more)"),
    ("oldest:x", "invalid size 'x' in '--buffer oldest:x' (must be a whole number, 1 or more)"),
    ("", "invalid value '' for '--buffer' (use newest:N, oldest:N or unbounded)"),
  ])
  func badBufferPoliciesAreUsageErrors(text: String, message: String) {
    #expect(throws: UsageError.invalidValue(message, command: "ticker")) {
      try TickerBuffer.parse(text)
    }
  }

  // MARK: Random prices

  /// The documented mapping, checked against the Python port in docs/ticker.md.
  @Test func randomPricesFollowTheDocumentedSequence() throws {
    #expect(expectedPrices(seed: 42, count: 5) == [103.12, 108.88, 91.68, 95.7, 100.3])
    var negative = try RandomPrices(seed: 1, min: -5, max: 5)
    #expect((0..<3).map { _ in negative.next() } == [-2.6, -0.52, 1.38])
  }

  @Test(arguments: [
    (0.1, 0.2, 10, 20), (90, 110, 9000, 11000), (-5, 5, -500, 500), (1.001, 1.029, 101, 102),
  ])
  func boundsAreRoundedInwardsToCents(min: Double, max: Double, low: Int, high: Int) throws {
    let prices = try RandomPrices(seed: 0, min: min, max: max)
    #expect(prices.lowCents == low)
    #expect(prices.highCents == high)
  }

  @Test func everyPriceStaysWithinTheBounds() throws {
    var prices = try RandomPrices(seed: 7, min: 1.001, max: 1.029)
    let values = Set((0..<1000).map { _ in prices.next() })
    #expect(values == [1.01, 1.02])
  }

  @Test(arguments: [
    (110.0, 90.0, RandomPrices.RangeProblem.notIncreasing), (5, 5, .notIncreasing),
    (0, 2e12, .tooLarge), (1.001, 1.019, .tooNarrow),
  ])
  func badRangesAreRefused(min: Double, max: Double, problem: RandomPrices.RangeProblem) {
    #expect(throws: problem) { try RandomPrices(seed: 0, min: min, max: max) }
  }

  // MARK: --from lines

  @Test(arguments: [("101.25", 101.25), ("-3", -3), ("1e3", 1000), ("+7.5", 7.5), ("0", 0)])
  func priceLinesParse(text: String, value: Double) throws {
    #expect(try PriceLine.parse(text).get() == value)
  }

  @Test(arguments: ["abc", "nan", "inf", "0x1p3", "1,5", "1e400", "12 13", "-"])
  func otherLinesAreRejected(text: String) {
    #expect(
      throws: LineProblem("not a price: '\(text)' (expected a number such as 101.25)")
    ) { try PriceLine.parse(text).get() }
  }
}
