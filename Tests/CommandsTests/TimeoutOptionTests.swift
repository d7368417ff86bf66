import Testing

@testable import LoadctlCommands

/// `--timeout` is more than zero wherever it is an option, and so are the timer's `--interval`
/// and `--duration`: at least 1ns, the finest wait a clock takes.
@Suite struct TimeoutOptionTests {
  /// The subcommands with a `--timeout`, from the real table.
  static let commands = CommandTable.program.commands
    .filter { $0.options.contains { $0.name == "timeout" } }.map(\.name)

  @Test func profileAndSearchHaveATimeout() {
    #expect(Set(Self.commands).isSuperset(of: ["profile", "search"]))
  }

  @Test(arguments: ["0", "0s", "0.0ms", "0ns"])
  func aZeroDurationIsNotPositive(text: String) {
    #expect(throws: ValueProblem("invalid value '\(text)' for '--timeout' (must be more than 0)")) {
      try ValueValidator.positiveDuration(text, name: "--timeout")
    }
  }

  /// Less than a clock can wait would act as `0`: refused the same way, saying the least.
  @Test(arguments: ["0.0000000001s", "0.5ns", "0.0001us"])
  func aDurationBelowOneNanosecondIsNotPositive(text: String) {
    #expect(throws: ValueProblem("invalid value '\(text)' for '--timeout' (must be at least 1ns)"))
    {
      try ValueValidator.positiveDuration(text, name: "--timeout")
    }
  }

  /// Every duration that refuses `0` is refused by the parser, by the one rule.
  @Test(arguments: [
    (["timer", "--interval", "0"], "invalid value '0' for '--interval' (must be more than 0)"),
    (
      ["timer", "--interval", "0.0000000001s"],
      "invalid value '0.0000000001s' for '--interval' (must be at least 1ns)"
    ),
    (["timer", "--duration=0s"], "invalid value '0s' for '--duration' (must be more than 0)"),
    (
      ["timer", "--duration", "0.1ns"],
      "invalid value '0.1ns' for '--duration' (must be at least 1ns)"
    ),
    (
      ["search", "--exec", "true", "--timeout", "0.9ns"],
      "invalid value '0.9ns' for '--timeout' (must be at least 1ns)"
    ),
  ])
  func aZeroOrSubNanosecondDurationIsAUsageError(arguments: [String], message: String) {
    let error = #expect(throws: UsageError.self) {
      try parse(arguments, spec: CommandTable.program)
    }
    #expect(error?.message == message)
    #expect(error?.command == arguments[0])
  }

  @Test func anyDurationAboveZeroIsPositive() throws {
    #expect(try ValueValidator.positiveDuration("1ns", name: "--timeout") == .nanoseconds(1))
    #expect(try ValueValidator.positiveDuration("10s", name: "--timeout") == .seconds(10))
    #expect(throws: ValueProblem.self) { try ValueValidator.positiveDuration("x", name: "--t") }
  }

  @Test(arguments: commands, [["--timeout", "0"], ["--timeout=0s"]])
  func aZeroTimeoutIsAUsageError(command: String, timeout: [String]) {
    let error = #expect(throws: UsageError.self) {
      try parse([command, "--exec", "true"] + timeout, spec: CommandTable.program)
    }
    #expect(error?.command == command)
    #expect(error?.message.hasSuffix("for '--timeout' (must be more than 0)") == true)
    #expect(error?.exitCode == 64)
  }

  /// `-1s` right after `--timeout` is its value, refused as a duration, as `--timeout=-1s` is;
  /// it used to read as an option, leaving `--timeout` without a value.
  @Test(arguments: commands, [["--timeout", "-1s"], ["--timeout=-1s"]])
  func aNegativeTimeoutIsAnInvalidDuration(command: String, timeout: [String]) {
    let error = #expect(throws: UsageError.self) {
      try parse([command, "--exec", "true"] + timeout, spec: CommandTable.program)
    }
    #expect(error?.message == "invalid duration '-1s' for '--timeout' (\(durationForms))")
  }

  /// curl counts `--max-time` in whole milliseconds and reads less than one as no limit.
  @Test(arguments: [
    (Duration.nanoseconds(1), "0.001"), (.microseconds(500), "0.001"), (.milliseconds(1), "0.001"),
    (.milliseconds(1500), "1.5"),
  ])
  func curlsMaxTimeIsAtLeastOneMillisecond(timeout: Duration, maxTime: String) {
    let request = ExternalCommand.CurlRequest(
      curl: "/usr/bin/curl", url: "http://h/", headers: [], timeout: timeout,
      killAfter: .seconds(1))
    #expect(
      request.arguments == ["-q", "-fsSL", "--globoff", "--max-time", maxTime, "--config", "-"])
  }
}
