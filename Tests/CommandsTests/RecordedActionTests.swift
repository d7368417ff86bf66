import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `RecordableAction`: every case of every flow's action survives `recorded` → JSON text →
/// `JSONParser.parse` → `fromRecorded`, and what is not a recorded action is refused in one line
/// naming the problem.
@Suite struct RecordedActionTests {
  /// Writes `action` as text, parses it back and reads it, as a replay would.
  private static func roundTrip<Action: RecordableAction>(
    _ action: Action
  ) throws -> Result<Action, LineProblem> {
    let text = action.recorded.serialized
    return Action.fromRecorded(try JSONParser.parse(text))
  }

  /// Checks that `action` reads back equal, and that its JSON is tagged with its name.
  private static func expectRoundTrip<Action: RecordableAction & Equatable>(
    _ action: Action
  ) throws {
    #expect(action.recorded["action"] == .string(action.name))
    // What a recording holds is `writeRecorded`'s text, which must be `recorded`'s.
    var written: [UInt8] = []
    action.writeRecorded(to: &written)
    #expect(String(decoding: written, as: UTF8.self) == action.recorded.serialized)
    let result = try roundTrip(action)
    switch result {
    case .success(let read): #expect(read == action, "\(action.recorded.serialized)")
    case .failure(let problem):
      Issue.record("\(action.recorded.serialized) was refused: \(problem.message)")
    }
  }

  static let counterActions: [CounterAction] = [
    .increment, .decrement, .delayedIncrement, .incrementResponse,
    .delayedIncrementFailed("exit status 1"), .delayedIncrementFailed(""),
    .delayedIncrementFailed("quote \" backslash \\ newline\n\u{1B}[2J é 🚀"), .cancel, .interrupt,
    .output(.line(.stdout, "hello")), .output(.line(.stderr, "warn \u{1B}[31m\t\"x\"")),
    .output(.line(.stdout, "")), .output(.dropped(.stderr, bytes: 65_536)),
    .output(.lines(.stdout, ["one", "", "three \u{1B}"])),
  ]

  @Test(arguments: counterActions)
  func counterActionsRoundTrip(action: CounterAction) throws {
    try Self.expectRoundTrip(action)
  }

  static let searchActions: [SearchAction] = [
    .queryChanged("swift"), .queryChanged(""), .queryChanged("  #lead\ttab\u{85}"),
    .debounceElapsed(query: "sw", revision: 2),
    .response(
      query: "sw", revision: 2,
      result: .success(SearchHits(items: ["swift", "swiftui", "sweep"], total: 31))),
    .response(query: "zz", revision: 7, result: .success(SearchHits(items: [], total: 0))),
    .response(query: "x", revision: 3, result: .failure(LoadFailure("backend timed out"))),
    .interrupt,
  ]

  @Test(arguments: searchActions)
  func searchActionsRoundTrip(action: SearchAction) throws {
    try Self.expectRoundTrip(action)
  }

  static let timerActions: [TimerAction] = [
    .toggle, .start, .stop, .reset, .tick(.onTime),
    .tick(TimerAction.Tick(missed: 2, lateness: .nanoseconds(1_234_567))),
    .tick(TimerAction.Tick(missed: 0, lateness: .seconds(3) + .nanoseconds(1))),
    .tick(TimerAction.Tick(missed: 0, lateness: .nanoseconds(-5))),
  ]

  @Test(arguments: timerActions)
  func timerActionsRoundTrip(action: TimerAction) throws {
    try Self.expectRoundTrip(action)
  }

  static let profileActions: [ProfileAction] = [
    .load, .retry, .cancel, .quit, .autoRetry, .interrupt,
    .output(.line(.stderr, "curl: (22) 404")), .output(.lines(.stderr, ["a", "b"])),
    .output(.dropped(.stderr, bytes: 70_000)),
    .loadResponse(.success(Profile(name: "Taylor"))),
    .loadResponse(
      .success(
        Profile(
          name: "Taylor",
          fields: .object([
            ("name", "Taylor"), ("age", 41), ("score", 97.5), ("verified", true),
            ("manager", .null), ("tags", .array(["admin", 3, .array([])])),
            ("address", .object([("city", "Lisbon"), ("geo", .object([("lat", 38.72)]))])),
          ])))),
    // A profile is what its source had: the name need not be among the fields.
    .loadResponse(.success(Profile(name: "Ana", fields: .object([("id", 7)])))),
    .loadResponse(.failure(LoadFailure("HTTP 503 from https://example.test/profile"))),
  ]

  @Test(arguments: profileActions)
  func profileActionsRoundTrip(action: ProfileAction) throws {
    try Self.expectRoundTrip(action)
  }

  static let tickerActions: [TickerAction] = [
    .prices([101.25, 0.1, 1e-7, 123_456_789.123, 100], dropped: 0),
    .prices([], dropped: 12),
    .prices(
      [
        1.0 / 3, .pi, -2.5, Double.ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        9_007_199_254_740_994, 0.30000000000000004,
      ], dropped: 3),
  ]

  @Test(arguments: tickerActions)
  func tickerActionsRoundTrip(action: TickerAction) throws {
    try Self.expectRoundTrip(action)
    // Bit for bit, not only by `==`.
    guard case .success(.prices(let read, _)) = try Self.roundTrip(action),
      case .prices(let prices, _) = action
    else { return }
    #expect(read.map(\.bitPattern) == prices.map(\.bitPattern))
  }

  @Test func recordedJSONIsWhatTheFormatSays() {
    #expect(
      TimerAction.tick(TimerAction.Tick(missed: 2, lateness: .nanoseconds(1_234_567))).recorded
        .serialized == #"{"action":"tick","missed":2,"lateness_ns":1234567}"#)
    #expect(
      TickerAction.prices([101.25, 0.1, 1e-7, 123_456_789.123, 100], dropped: 3).recorded
        .serialized
        == #"{"action":"prices","prices":[101.25,0.1,1e-07,123456789.123,100],"dropped":3}"#)
    #expect(
      SearchAction.response(
        query: "sw", revision: 2, result: .success(SearchHits(items: ["swift"], total: 9))
      ).recorded.serialized
        == #"{"action":"response","query":"sw","revision":2,"ok":true,"items":["swift"],"total":9}"#
    )
    #expect(
      CounterAction.delayedIncrement.recorded.serialized == #"{"action":"delayed_increment"}"#)
  }

  /// A batch of whole cents (every built-in feed's) is written as integers and reads back as the
  /// same `Double`s, bit for bit; one price that is not a whole number of cents makes the batch
  /// numbers.
  @Test func aBatchOfWholeCentsIsWrittenInCents() throws {
    let prices = [101.25, 0.1, 100, -3, 0, 0.07, 99.99, 1e13, -0.0]
    let action = TickerAction.prices(prices, dropped: 2)
    #expect(
      action.recorded.serialized
        == #"{"action":"prices","cents":[10125,10,10000,-300,0,7,9999,1000000000000000,0],"#
        + #""dropped":2}"#)
    guard case .success(.prices(let read, 2)) = try Self.roundTrip(action) else {
      Issue.record("\(action.recorded.serialized) did not read back")
      return
    }
    #expect(read.dropLast().map(\.bitPattern) == prices.dropLast().map(\.bitPattern))
    #expect(
      TickerAction.prices([101.25, 0.125], dropped: 0).recorded.serialized
        == #"{"action":"prices","prices":[101.25,0.125],"dropped":0}"#)
  }

  @Test(arguments: [
    (
      #"{"action":"prices","cents":[1],"prices":[1],"dropped":0}"#,
      #"has both "cents" and "prices""#
    ),
    (#"{"action":"prices","cents":[1.5],"dropped":0}"#, #"field "cents[0]" must be an integer"#),
    (
      #"{"action":"prices","cents":[9007199254740993],"dropped":0}"#,
      #"field "cents[0]" is out of range"#
    ),
  ])
  func aBadCentsBatchIsRefused(json: String, problem: String) throws {
    let read = TickerAction.fromRecorded(try JSONParser.parse(json))
    guard case .failure(let refusal) = read else {
      Issue.record("\(json) was read: \(read)")
      return
    }
    #expect(refusal.message.contains(problem), "\(refusal.message)")
  }

  @Test func integralPricesAreWrittenAsIntegersAndReadBack() throws {
    let action = TickerAction.prices([100, -3, 0.001], dropped: 0)
    #expect(action.recorded["prices"]?.serialized == "[100,-3,0.001]")
    let parsed = try JSONParser.parse(action.recorded.serialized)
    guard case .array(let prices)? = parsed["prices"] else {
      Issue.record("no prices array in \(parsed.serialized)")
      return
    }
    #expect(prices.dropLast().allSatisfy { if case .int = $0 { true } else { false } })
    #expect(TickerAction.fromRecorded(parsed) == .success(action))
  }

  /// What cannot round-trip, as the ticker's conformance documents.
  @Test func negativeZeroLosesItsSignAndNaNIsRefused() throws {
    guard
      case .success(.prices(let zero, _)) = try Self.roundTrip(
        TickerAction.prices([-0.0], dropped: 0))
    else {
      Issue.record("-0.0 was refused")
      return
    }
    #expect(zero == [0.0])
    #expect(zero.first?.sign == .plus)

    for price in [Double.nan, .infinity, -.infinity] {
      let problem = try Self.roundTrip(TickerAction.prices([1, price], dropped: 0)).problem
      #expect(problem?.contains(#"field "prices[1]" must be a number, not null"#) == true)
    }
  }

  static let happenings: [StoreHappening<CounterAction>] = [
    .input(.increment), .input(.delayedIncrementFailed("exit \"1\"")), .inputFinished,
    .effectAction(.incrementResponse, serial: 12), .effectFinished(serial: 3, .finished),
    .effectFinished(serial: 4, .cancelled), .effectFinished(serial: 5, .failed("boom\n")),
    .cancelRequest("delay"), .cancelled,
  ]

  /// A recording line's fields are written straight into the buffer; they must be what the
  /// happening's `recorded` fields say, and read back as the same happening.
  @Test(arguments: happenings)
  func happeningsAreWrittenAsTheirFieldsSay(happening: StoreHappening<CounterAction>) throws {
    var written: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "0")]
    happening.writeRecorded(to: &written)
    written.append(UInt8(ascii: "}"))
    let text = String(decoding: written, as: UTF8.self)
    #expect(text == "{0," + JSONValue.object(happening.recorded).serialized.dropFirst())
    let read = StoreHappening<CounterAction>.fromRecorded(
      try JSONParser.parse("{" + text.dropFirst(3)))
    #expect(read == .success(happening), "\(text)")
  }

  static let nanosecondCases: [(Duration, Int)] = [
    (.zero, 0),
    (.nanoseconds(1_234_567), 1_234_567),
    (.seconds(3) + .nanoseconds(1), 3_000_000_001),
    (.milliseconds(-1_500), -1_500_000_000),
    (Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999), 1),
    (Duration(secondsComponent: -1, attosecondsComponent: -999_999_999), -1_000_000_000),
    (.seconds(Int64.max), .max),
    (.seconds(Int64.min), .min),
  ]

  @Test(arguments: nanosecondCases)
  func durationsAreWholeNanosecondsClampedToInt(duration: Duration, nanoseconds: Int) {
    #expect(RecordedFields.nanoseconds(duration) == nanoseconds)
  }

  /// The flow a rejection test reads with.
  enum Flow: Sendable { case counter, search, timer, profile, ticker }

  static let rejections: [(Flow, String, String)] = [
    // Not an object.
    (.counter, "[1]", "a recorded counter action must be a JSON object, not an array"),
    (.timer, #""tick""#, "a recorded timer action must be a JSON object, not a string"),
    (.ticker, "null", "a recorded ticker action must be a JSON object, not null"),
    // No usable `action`.
    (.search, "{}", #"a recorded search action has no "action" field"#),
    (
      .profile, #"{"action":3}"#,
      #"a recorded profile action's "action" field must be a string, not an integer"#
    ),
    // Unknown action.
    (
      .counter, #"{"action":"explode"}"#,
      #"unknown recorded counter action "explode" (expected increment, decrement, "#
    ),
    (.ticker, #"{"action":"tick"}"#, #"unknown recorded ticker action "tick" (expected prices)"#),
    (.timer, #"{"action":"Toggle"}"#, #"unknown recorded timer action "Toggle""#),
    // A missing field.
    (
      .counter, #"{"action":"delayed_increment_failed"}"#,
      #"recorded counter action "delayed_increment_failed" has no "message" field"#
    ),
    (
      .counter, #"{"action":"output","stream":"stdin","line":"x"}"#,
      #"recorded counter action "output" field "stream" must be "stdout" or "stderr", not "stdin""#
    ),
    (
      .counter, #"{"action":"output","stream":"stdout"}"#,
      #"recorded counter action "output" has no "dropped_bytes" field"#
    ),
    (
      .timer, #"{"action":"tick","missed":0}"#,
      #"recorded timer action "tick" has no "lateness_ns" field"#
    ),
    (
      .search, #"{"action":"response","query":"q","revision":1,"ok":true,"items":[]}"#,
      #"recorded search action "response" has no "total" field"#
    ),
    (
      .profile, #"{"action":"load_response","ok":true,"name":"Taylor"}"#,
      #"recorded profile action "load_response" has no "fields" field"#
    ),
    (
      .ticker, #"{"action":"prices","prices":[1]}"#,
      #"recorded ticker action "prices" has no "dropped" field"#
    ),
    // A field of the wrong type.
    (
      .timer, #"{"action":"tick","missed":"2","lateness_ns":1}"#,
      #"field "missed" must be an integer, not a string"#
    ),
    (
      .timer, #"{"action":"tick","missed":0,"lateness_ns":1.5}"#,
      #"field "lateness_ns" must be an integer number of nanoseconds, not a number"#
    ),
    (
      .timer, #"{"action":"tick","missed":0,"lateness_ns":1e30}"#,
      #"field "lateness_ns" must be an integer number of nanoseconds, not a number"#
    ),
    (
      .search, #"{"action":"debounce_elapsed","query":"q","revision":2.5}"#,
      #"recorded search action "debounce_elapsed" field "revision" must be an integer, not a number"#
    ),
    (
      .search, #"{"action":"response","query":"q","revision":1,"ok":"yes"}"#,
      #"field "ok" must be a boolean, not a string"#
    ),
    (
      .search,
      #"{"action":"response","query":"q","revision":1,"ok":true,"items":["a",1],"total":2}"#,
      #"field "items[1]" must be a string, not an integer"#
    ),
    (
      .search, #"{"action":"query_changed","query":null}"#,
      #"field "query" must be a string, not null"#
    ),
    (
      .profile, #"{"action":"load_response","ok":false,"message":{}}"#,
      #"field "message" must be a string, not an object"#
    ),
    (
      .ticker, #"{"action":"prices","prices":{"a":1},"dropped":0}"#,
      #"field "prices" must be an array, not an object"#
    ),
    (
      .ticker, #"{"action":"prices","prices":[1,"2"],"dropped":0}"#,
      #"field "prices[1]" must be a number, not a string"#
    ),
    // A count out of range: each once crashed a replay (SIGILL) on an overflow or a negative
    // repeat count.
    (
      .timer, #"{"action":"tick","missed":-5,"lateness_ns":1}"#,
      #"field "missed" must be a count from 0 to 2^53, not -5"#
    ),
    (
      .timer, #"{"action":"tick","missed":9223372036854775807,"lateness_ns":1}"#,
      #"field "missed" must be a count from 0 to 2^53, not 9223372036854775807"#
    ),
    (
      .ticker, #"{"action":"prices","prices":[1],"dropped":-9223372036854775808}"#,
      #"field "dropped" must be a count from 0 to 2^53, not -9223372036854775808"#
    ),
    (
      .search, #"{"action":"debounce_elapsed","query":"q","revision":-1}"#,
      #"field "revision" must be a count from 0 to 2^53, not -1"#
    ),
    (
      .search, #"{"action":"response","query":"q","revision":1,"ok":true,"items":[],"total":-3}"#,
      #"field "total" must be a count from 0 to 2^53, not -3"#
    ),
  ]

  @Test(arguments: rejections)
  func malformedRecordsAreRefusedInOneLine(flow: Flow, json: String, expected: String) throws {
    let value = try JSONParser.parse(json)
    let problem: String? =
      switch flow {
      case .counter: CounterAction.fromRecorded(value).problem
      case .search: SearchAction.fromRecorded(value).problem
      case .timer: TimerAction.fromRecorded(value).problem
      case .profile: ProfileAction.fromRecorded(value).problem
      case .ticker: TickerAction.fromRecorded(value).problem
      }
    guard let problem else {
      Issue.record("\(json) was read as a \(flow) action")
      return
    }
    #expect(problem.contains(expected), "\(problem)")
    #expect(!problem.contains("\n"))
  }

  @Test func fieldsBesideTheOnesReadAreIgnored() throws {
    let value = try JSONParser.parse(#"{"action":"increment","seq":4,"note":"later"}"#)
    #expect(CounterAction.fromRecorded(value) == .success(.increment))
  }
}

extension Result where Failure == LineProblem {
  /// The problem's message, or `nil` for a success.
  fileprivate var problem: String? {
    guard case .failure(let problem) = self else { return nil }
    return problem.message
  }
}
