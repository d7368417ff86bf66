import LoadctlCore
import Testing

@testable import LoadctlCommands

/// Parses `loadctl ticker …` with the real command table.
private func invocation(_ arguments: [String]) throws -> Invocation {
  guard case .run(let invocation) = try parse(["ticker"] + arguments, spec: CommandTable.program)
  else { throw UsageError.invalidValue("not a run", command: nil) }
  return invocation
}

/// A live source that yields fixed values, then fails with `message` (or, with `waits`, stays
/// open until cancelled and then fails: a failure after the consumer is done).
private struct FailingPrices: LivePriceSource {
  var values: [Double]
  var message: String
  var waits = false

  func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    for value in values {
      guard await sink.yield(value) else { return .failed(message) }
    }
    if waits { await StreamTermination().wait() }
    return .failed(message)
  }
}

/// Runs `source` as an `--exec` feed would be run, on real time, and collects what the consumer
/// received and which lines were rejected.
private func collect(_ source: (@escaping @Sendable (InputError) -> Void) -> ExecPriceLines)
  async -> (prices: [Double], rejected: [InputError], report: PriceFeedReport)
{
  let rejected = TickerRecorder<InputError>()
  let feed = LivePriceFeed(buffer: .unbounded)
  let (prices, report) = await feed.run(source({ rejected.append($0) })) { live in
    var reader = live.makeReader()
    var prices: [Double] = []
    while let price = await reader.next() { prices.append(price) }
    return prices
  }
  return (prices, rejected.values, report)
}

/// An `--exec` source for `command` on the continuous clock.
private func execSource(_ command: String) -> (@escaping @Sendable (InputError) -> Void)
  -> ExecPriceLines
{
  { reject in
    let clock = ContinuousClock()
    let start = clock.now
    return ExecPriceLines(
      subprocess: ExternalCommand.shell(command, killAfter: .seconds(2)),
      clock: LineClock(clock: clock, elapsed: { start.duration(to: clock.now) }), reject: reject)
  }
}

@Suite struct TickerExecOptionsTests {
  @Test func execTakesTheDefaultGraceAndNoRandomSettings() throws {
    let parsed = try invocation(["--exec", "echo 100"])
    #expect(
      try TickerCommand.execSettings(parsed)
        == TickerCommand.ExecSettings(command: "echo 100", killAfter: .seconds(2)))
    #expect(try TickerCommand.randomSettings(parsed) == nil)
  }

  @Test func killAfterSetsTheGrace() throws {
    let parsed = try invocation(["--exec", "echo 100", "--kill-after", "300ms"])
    #expect(try TickerCommand.execSettings(parsed)?.killAfter == .milliseconds(300))
  }

  @Test func withoutExecThereAreNoExecSettings() throws {
    #expect(try TickerCommand.execSettings(invocation([])) == nil)
    #expect(try TickerCommand.execSettings(invocation(["--from", "-"])) == nil)
  }

  @Test(arguments: [
    (["--exec", "echo 1", "--from", "-"], "'--exec' and '--from' cannot be used together"),
    (
      ["--exec", "echo 1", "--clock", "virtual"],
      "'--exec' cannot be used with '--clock virtual': real processes do not run on virtual time"
    ),
    (["--kill-after", "1s"], "'--kill-after' only applies to '--exec'"),
    (["--from", "-", "--kill-after", "1s"], "'--kill-after' only applies to '--exec'"),
  ])
  func badExecCombinationsAreUsageErrors(arguments: [String], message: String) throws {
    let parsed = try invocation(arguments)
    #expect(throws: UsageError.invalidValue(message, command: "ticker")) {
      try TickerCommand.execSettings(parsed)
    }
  }

  @Test(arguments: ["interval", "min", "max", "seed"])
  func randomFeedOptionsAreRefusedWithExec(name: String) throws {
    let parsed = try invocation(["--exec", "echo 1", "--\(name)", name == "interval" ? "1s" : "1"])
    let message = "'--\(name)' cannot be used with '--exec' (it sets the random feed)"
    #expect(throws: UsageError.invalidValue(message, command: "ticker")) {
      try TickerCommand.randomSettings(parsed)
    }
  }
}

@Suite struct TickerExecFlowTests {
  /// The source broke off while the consumer was reading: `producer_stopped` says so with the
  /// message, the failure is reported once after it, and the flow ends failed.
  @Test func aFailedSourceEndsTheFeedAsFailed() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let errors = CapturedTickerOutput(clock: clock, json: false)
    let ends = TickerRecorder<FlowEnd>()
    let source = FailingPrices(values: [101, 102], message: "command failed (exit status 3): x")
    let flow = TickerFlow(buffer: .default, count: nil, source: .live(source))
    _ = clock.launch {
      ends.append(await runTicker(flow, capture: capture, clock: clock, errors: errors))
    }
    #expect(clock.run(limit: 1000))
    #expect(
      capture.describe(["n", "reason", "produced", "message"]) == [
        "tick n=1 @0", "tick n=2 @0",
        "producer_stopped reason=source_failed produced=2 message=command failed (exit status 3): x @0",
      ])
    #expect(errors.lines == ["Error: command failed (exit status 3): x"])
    #expect(try #require(ends.values.first).status == .failed)
  }

  /// Once `--count` is reached, how the source ends is no longer the feed's business.
  @Test func aFailureAfterTheCountIsNotReported() throws {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let errors = CapturedTickerOutput(clock: clock, json: false)
    let ends = TickerRecorder<FlowEnd>()
    let source = FailingPrices(values: [101, 102], message: "late", waits: true)
    let flow = TickerFlow(buffer: .default, count: 2, source: .live(source))
    _ = clock.launch {
      ends.append(await runTicker(flow, capture: capture, clock: clock, errors: errors))
    }
    #expect(clock.run(limit: 1000))
    #expect(
      capture.describe(["reason", "message"]).last == "producer_stopped reason=consumer_finished @0"
    )
    #expect(errors.lines == [])
    #expect(try #require(ends.values.first).status == .completed)
  }
}

/// `ExecPriceLines` with real (short) commands: the `--from` grammar over a command's stdout.
@Suite struct ExecPriceLinesTests {
  @Test func linesFollowTheFromGrammar() async {
    let (prices, rejected, report) = await collect(
      execSource(#"printf '# prices\n100\n\n+10ms 101.5\nabc\n\377\n-3\r\n1e2'"#))
    #expect(prices == [100, 101.5, -3, 100])
    #expect(
      rejected == [
        InputError(line: 5, message: "not a price: 'abc' (expected a number such as 101.25)"),
        InputError(line: 6, message: "not valid UTF-8"),
      ])
    #expect(report == PriceFeedReport(sourceEnd: .sourceFinished, produced: 4, dropped: 0))
  }

  /// A line longer than the subprocess's line limit arrives in pieces; it is still one rejected
  /// line, and the lines after it keep their numbers.
  @Test func aHugeLineIsOneRejectedLine() async {
    let (prices, rejected, _) = await collect(
      execSource("head -c 2500000 /dev/zero | tr '\\0' 7; echo; echo 42; echo x"))
    #expect(prices == [42])
    #expect(
      rejected == [
        InputError(line: 1, message: "line longer than \(LineSource.maxLineLength) bytes"),
        InputError(line: 3, message: "not a price: 'x' (expected a number such as 101.25)"),
      ])
  }

  @Test(arguments: [
    ("echo 1; echo boom >&2; exit 3", "command failed (exit status 3): boom"),
    ("kill -USR1 $$", "command failed (killed by SIGUSR1)"),
  ])
  func aFailingCommandFailsTheFeed(command: String, message: String) async {
    let (prices, _, report) = await collect(execSource(command))
    #expect(report.sourceEnd == .failed(message))
    #expect(prices == (command.hasPrefix("echo 1") ? [1] : []))
  }

  /// Closing stdout is the end of the feed; the command still running is torn down, which is
  /// not a failure.
  @Test func aCommandThatClosesStdoutEndsTheFeed() async {
    let (prices, _, report) = await collect(execSource("echo 7; exec >&-; exec sleep 100"))
    #expect(prices == [7])
    #expect(report.sourceEnd == .sourceFinished)
  }
}
