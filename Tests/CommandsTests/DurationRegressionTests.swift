import Testing

@testable import LoadctlCommands

/// Durations the parser accepts must survive everything the program does with them.
///
/// Found while preparing the fuzz targets: `--latency 9223372036854775807s` (accepted as
/// `Int64.max` seconds) trapped in `EventOutput.milliseconds` when `start` was written, an input
/// line `+9223372036854775807s load` trapped in `ContinuousClock`'s deadline, and a huge
/// `--backoff` trapped when doubled. The parser now caps durations at ``maxDuration``.
@Suite struct DurationRegressionTests {
  @Test(arguments: [
    "9223372036854775807s", "10000000000000s", "1000000000.000000001s", "277778h", "16666667m",
  ])
  func durationsPastTheCapAreRejected(text: String) {
    #expect(parseDuration(text) == nil)
    #expect(
      ValueValidator.problem(with: text, kind: .duration, name: "--latency")
        == "invalid duration '\(text)' for '--latency' (\(durationForms))")
    #expect(durationForms.contains("at most 1000000000s"))
  }

  @Test func theLongestAcceptedDurationIsTheCap() {
    #expect(parseDuration("1000000000s") == maxDuration)
    #expect(parseDuration("16666666m") == .seconds(999_999_960))
  }

  @Test func theCapFitsInMillisecondsForJSON() {
    #expect(EventOutput.milliseconds(maxDuration) == 1_000_000_000_000)
  }

  /// A virtual run's clock goes past the cap by summing capped waits (`--retries 14` backoffs of
  /// 1e9 s, 9,300 ticks of 1e9 s): an `elapsed_ms` past 2^63 microseconds trapped, SIGILL.
  @Test func aVirtualClockPastInt64MicrosecondsIsWrittenNotATrap() {
    #expect(EventOutput.milliseconds(.seconds(16_383_000_000_000)) == 16_383_000_000_000_000)
    #expect(EventOutput.milliseconds(.seconds(Int64.max)) == Double(Int64.max) * 1000)
    #expect(EventOutput.milliseconds(.milliseconds(1500)) == 1500)
  }

  @Test func theCapDoubledAsOftenAsABackoffStillFitsASleepDeadline() {
    let longestBackoff = maxDuration * (1 << 20)
    #expect(longestBackoff.components.seconds == 1_048_576_000_000_000)
    #expect(longestBackoff.components.seconds < Int64.max / 2)
  }

  @Test func aTimePrefixPastTheCapIsARejectedLineNotATrap() {
    #expect(throws: InputError.self) {
      try InputLine.parse("+9223372036854775807s load", number: 3)
    }
    #expect(
      throws: InputError(
        line: 1,
        message: "invalid time prefix '@10000000000000s' (use +DURATION or @DURATION, "
          + "e.g. +300ms, @1.5s)")
    ) {
      try InputLine.parse("@10000000000000s load", number: 1)
    }
  }

  /// `formatDuration` takes any duration; it computed `magnitude * 1000` in `UInt128`, which
  /// overflowed above about 3.4e17 seconds.
  @Test(arguments: [
    (Duration.seconds(Int64.max), "9223372036854775807s"),
    (.seconds(Int64.min), "-9223372036854775808s"),
    (.seconds(400_000_000_000_000_000), "400000000000000000s"),
    (
      Duration(secondsComponent: Int64.max, attosecondsComponent: 1),
      "9223372036854775807000000000ns"
    ),
  ])
  func formattingAHugeDurationDoesNotOverflow(duration: Duration, expected: String) {
    #expect(formatDuration(duration) == expected)
  }
}
