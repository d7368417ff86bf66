import Testing

@testable import LoadctlCommands

@Suite struct DurationParserTests {
  @Test(arguments: [
    ("0", Duration.zero),
    ("0s", .zero),
    ("0.0ms", .zero),
    ("300ms", .milliseconds(300)),
    ("1s", .seconds(1)),
    ("1.5s", .milliseconds(1500)),
    ("2m", .seconds(120)),
    ("1h", .seconds(3600)),
    ("1.25h", .seconds(4500)),
    ("250us", .microseconds(250)),
    ("250µs", .microseconds(250)),
    ("250μs", .microseconds(250)),
    ("10ns", .nanoseconds(10)),
    ("0.5ms", .microseconds(500)),
    ("0.000000001s", .nanoseconds(1)),
    ("1.5ns", Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000)),
    ("0.1s", .milliseconds(100)),
    ("007s", .seconds(7)),
    ("1000000000s", .seconds(1_000_000_000)),
    ("277777h", .seconds(999_997_200)),
  ])
  func acceptsANumberWithAUnit(text: String, expected: Duration) {
    #expect(parseDuration(text) == expected)
  }

  @Test(arguments: [
    "", " ", "1", "5", "0.0", "-1s", "+1s", "1 s", " 1s", "1s ", "1.s", ".5s", "1..5s", "1.2.3s",
    "s", "ms", "1x", "1S", "1Ms", "1e3s", "nan", "inf", "nans", "infs", "1sec", "1m30s", "1,5s",
    "0x10s", "١s", "1000000000.000000001s", "277778h", "9223372036854775807s",
    "9223372036854775808s", "99999999999999999999999999999999999999999h",
  ])
  func rejectsEverythingElse(text: String) {
    #expect(parseDuration(text) == nil)
  }

  @Test(arguments: [
    (Duration.zero, "0s"),
    (.milliseconds(300), "300ms"),
    (.seconds(1), "1s"),
    (.milliseconds(1500), "1.5s"),
    (.milliseconds(1001), "1.001s"),
    (.microseconds(1_000_100), "1000.1ms"),
    (.seconds(120), "2m"),
    (.seconds(90), "1.5m"),
    (.seconds(3600), "1h"),
    (.seconds(7200), "2h"),
    (.microseconds(250), "250us"),
    (.nanoseconds(1), "1ns"),
    (.milliseconds(-300), "-300ms"),
    (Duration(secondsComponent: 0, attosecondsComponent: 1), "0ns"),
  ])
  func formatsWithTheLargestExactUnit(duration: Duration, expected: String) {
    #expect(formatDuration(duration) == expected)
  }

  @Test(arguments: [
    Duration.milliseconds(300), .seconds(42), .milliseconds(1500), .seconds(5400),
    .microseconds(250), .nanoseconds(7), .zero,
  ])
  func formattedDurationsParseBack(duration: Duration) {
    #expect(parseDuration(formatDuration(duration)) == duration)
  }
}
