import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The published schema of `loadctl ticker --json`.
private let tickerSchema = SchemaValidator.schema(for: "ticker")

/// The first prices of seed 42 (SplitMix64, 90…110 in cents), as docs/ticker.md computes them.
private let seed42 = [103.12, 108.88, 91.68, 95.7, 100.3]

/// Checks a whole JSON run: envelope, and the schema when `jsonschema` is installed.
private func expectValidRun(_ lines: [String]) async throws {
  #expect(JSONLines.envelopeProblems(of: lines, command: "ticker") == [])
  if SchemaValidator.isAvailable {
    #expect(try await SchemaValidator.failures(of: lines, schema: tickerSchema) == [])
  }
}

private func isTick(_ n: Int) -> @Sendable (String) -> Bool {
  JSONEvent.matching { $0["event"] as? String == "tick" && JSONEvent.number($0["n"]) == Double(n) }
}

@Suite(.processSlots) struct TickerEndToEndTests {
  // MARK: Sequence and summary

  /// The same five prices whether the feed is unpaced or on a timer.
  @Test(arguments: ["0", "10ms"])
  func aSeedGivesAFixedSequence(interval: String) async throws {
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--json", "--count", "5", "--seed", "42", "--interval", interval])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr == "")
    try await expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      events.map(\.event) == [
        "start", "tick", "tick", "tick", "tick", "tick", "producer_stopped", "end",
      ])
    let ticks = events.filter { $0.event == "tick" }
    #expect(ticks.compactMap { $0.number("price") } == seed42)
    #expect(ticks.compactMap { $0.integer("n") } == [1, 2, 3, 4, 5])
    #expect(ticks.map { JSONEvent.number($0["change"]) } == [nil, 5.76, -17.2, 4.02, 4.6])
    #expect(events[6].string("reason") == "consumer_finished")
    let end = events[7]
    #expect(end.string("reason") == "completed")
    #expect(end.integer("exit_code") == 0)
    #expect(end.value(at: "summary.count") as? Int == 5)
    #expect(JSONEvent.number(end.value(at: "summary.mean")) == 99.936)
    #expect(JSONEvent.number(end.value(at: "summary.min")) == 91.68)
    #expect(JSONEvent.number(end.value(at: "summary.last")) == 100.3)
    #expect(events[0].value(at: "options.seed") as? Int == 42)
  }

  @Test func textShowsTicksWithArrowsThenTheSummary() async throws {
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--count", "3", "--seed", "42", "--interval", "0"])
    #expect(outcome.termination == .exited(0))
    let bodies = outcome.stdout.map { $0.split(separator: "  ticker  ", maxSplits: 1).last ?? "" }
    #expect(
      bodies == [
        "#1  103.12", "#2  108.88  ▲ 5.76", "#3  91.68  ▼ 17.20",
        "producer stopped (consumer finished): 3 produced, 0 dropped",
        "3 ticks  min 91.68  max 108.88  mean 101.226667  last 91.68  dropped 0",
      ])
    #expect(outcome.stdout.allSatisfy { $0.hasPrefix(" ") && $0.contains("s  ticker  ") })
  }

  @Test func withoutASeedTheChosenSeedIsShownAndReproducesTheRun() async throws {
    let first = try await LoadctlProcess.run([
      "ticker", "--json", "--count", "3", "--interval", "0",
    ])
    let seed = try #require(
      try JSONLines.parse(first.stdout).first?.value(at: "options.seed") as? Int)
    let again = try await LoadctlProcess.run(
      ["ticker", "--json", "--count", "3", "--interval", "0", "--seed", "\(seed)"])
    let prices = { (lines: [String]) in
      try JSONLines.parse(lines).filter { $0.event == "tick" }.compactMap { $0.number("price") }
    }
    #expect(try prices(first.stdout).count == 3)
    #expect(try prices(first.stdout) == prices(again.stdout))
  }

  /// Into a pipe, a tick arrives when it happens (flushed), not at exit: without `--count` the
  /// process cannot exit by itself, so seeing tick 1 at all proves it was flushed while ticking.
  /// It comes no earlier than one interval; how much later depends on the machine.
  @Test func ticksReachAPipeWhileTicking() async throws {
    let process = try LoadctlProcess.start(["ticker", "--json"])
    let first = try JSONEvent(parsing: try await process.waitForLine(where: isTick(1)))
    #expect(process.termination == nil)
    #expect((first.elapsedMilliseconds ?? 0) >= 1000)
    process.send(signal: SIGTERM)
    #expect(try await process.waitForExit() == .signaled(SIGTERM))
  }

  // MARK: Every way the consumer ends

  /// Without `--count` the feed never ends by itself: an exit by SIGPIPE at all proves that the
  /// next write after head left ended it. How long after (printed) depends on the machine.
  @Test(arguments: [["--interval", "20ms"], ["--interval", "0", "--json"]])
  func headClosingStdoutEndsQuietlyAndPromptly(options: [String]) async throws {
    let outcome = try await LoadctlPipeline.run(["ticker"] + options, into: ["head", "-n", "3"])
    print(outcome)
    #expect(outcome.downstream == .exited(0))
    #expect(outcome.output.count == 3)
    #expect(outcome.upstream == .signaled(SIGPIPE))
    #expect(outcome.upstreamStderr == "")
  }

  @Test(arguments: [(SIGINT, "interrupted", 130), (SIGTERM, "terminated", 143)])
  func aSignalStopsTheProducerBeforeEnd(signal: Int32, reason: String, code: Int) async throws {
    let process = try LoadctlProcess.start(["ticker", "--json", "--interval", "20ms"])
    try await process.waitForLine(where: isTick(2))
    process.send(signal: signal)
    #expect(try await process.waitForExit() == .signaled(signal))
    #expect(process.stderrText == "")
    #expect(process.leftoverProcesses() == [])
    let lines = process.stdoutLines
    try await expectValidRun(lines)
    let events = try JSONLines.parse(lines)
    #expect(events.suffix(2).map(\.event) == ["producer_stopped", "end"])
    let stopped = try #require(events.dropLast().last)
    let end = try #require(events.last)
    #expect(stopped.string("reason") == "cancelled")
    #expect(end.string("reason") == reason)
    #expect(end.integer("exit_code") == code)
    // Everything shown was produced; at most one value was made and never shown.
    let ticks = events.filter { $0.event == "tick" }.count
    let produced = try #require(stopped.integer("produced"))
    #expect((ticks...(ticks + 1)).contains(produced))
    #expect(end.value(at: "summary.count") as? Int == ticks)
  }

  @Test func ctrlCInTextModeSaysSoOnStderr() async throws {
    let process = try LoadctlProcess.start(["ticker", "--interval", "20ms"])
    try await process.waitForLine(containing: "#2  ")
    process.send(signal: SIGINT)
    #expect(try await process.waitForExit() == .signaled(SIGINT))
    #expect(process.stderrText == "interrupted — cancelling (Ctrl-C again to force)\n")
    let last = process.stdoutLines.suffix(2)
    #expect(last.first?.contains("ticker  producer stopped (cancelled): ") == true)
    #expect(last.last?.hasSuffix("(interrupted)") == true)
  }

  // MARK: --from

  @Test func fromStdinShowsGoodLinesAndRejectsBadOnesWith65() async throws {
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--json", "--from", "-"], stdin: .text("101.5\n102\nabc\n# note\n\n100.25\n"))
    #expect(outcome.termination == .exited(65))
    #expect(
      outcome.stderr
        == "Error: input line 3: not a price: 'abc' (expected a number such as 101.25)\n")
    try await expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      events.filter { $0.event == "tick" }.compactMap { $0.number("price") } == [
        101.5, 102, 100.25,
      ])
    let rejected = try #require(events.first { $0.event == "input_rejected" })
    #expect(rejected.integer("line") == 3)
    let stopped = try #require(events.first { $0.event == "producer_stopped" })
    #expect(stopped.string("reason") == "source_finished")
    let end = try #require(events.last)
    #expect(end.integer("exit_code") == 65)
    #expect(end.integer("rejected_lines") == 1)
    #expect(events.first?.value(at: "options.source") as? String == "lines")
  }

  @Test func fromAFileOfGoodLinesEndsWithZero() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("ticker-e2e-\(UUID().uuidString).txt")
    try "10\n10.5\n+1ms 9.75\n".write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let outcome = try await LoadctlProcess.run(["ticker", "--json", "--from", file.path])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr == "")
    try await expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      events.filter { $0.event == "tick" }.compactMap { $0.number("price") } == [10, 10.5, 9.75])
    #expect(events.first { $0.event == "producer_stopped" }?.string("reason") == "source_finished")
  }

  /// `tail -f prices.txt | loadctl ticker --from -`: each line is shown when it is written.
  @Test func fromAPipeShowsEachLineAsItArrives() async throws {
    let process = try LoadctlProcess.start(["ticker", "--json", "--from", "-"], stdin: .pipe)
    try process.write(toStdin: "100\n")
    try await process.waitForLine(where: isTick(1))
    try process.write(toStdin: "99.5\n")
    let second = try JSONEvent(parsing: try await process.waitForLine(where: isTick(2)))
    #expect(second.number("change") == -0.5)
    #expect(process.termination == nil)
    process.closeStdin()
    #expect(try await process.waitForExit() == .exited(0))
    try await expectValidRun(process.stdoutLines)
  }

  @Test func aLargeFastPipeIsShownCompletelyWithAnUnboundedBuffer() async throws {
    let count = 20_000
    let input = (1...count).map { "\($0)\n" }.joined()
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--json", "--from", "-", "--buffer", "unbounded"], stdin: .text(input))
    #expect(outcome.termination == .exited(0))
    let end = try JSONEvent(parsing: try #require(outcome.stdout.last))
    #expect(end.value(at: "summary.count") as? Int == count)
    #expect(JSONEvent.number(end.value(at: "summary.last")) == Double(count))
    #expect(end.value(at: "summary.dropped") as? Int == 0)
  }

  @Test func aMissingFromFileIsBadInput() async throws {
    let outcome = try await LoadctlProcess.run(["ticker", "--from", "/nonexistent/prices.txt"])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stdout == [])
    #expect(
      outcome.stderr
        == "Error: cannot open '/nonexistent/prices.txt' for --from: No such file or directory\n")
  }

  // MARK: Usage errors

  @Test(arguments: [
    (["--min", "110", "--max", "90"], "'--min 110' and '--max 90': --min must be less than --max"),
    (
      ["--buffer", "newest:0"],
      "invalid size '0' in '--buffer newest:0' (must be a whole number, 1 or more)"
    ),
    (
      ["--buffer", "fast"],
      "invalid value 'fast' for '--buffer' (use newest:N, oldest:N or unbounded)"
    ),
    (
      ["--interval", "5"],
      "invalid duration '5' for '--interval' (use a number with a unit, at most 1000000000s: "
        + "250us, 300ms, 1.5s, 2m, 1h)"
    ),
    (["--count", "0"], "invalid value '0' for '--count' (must be 1 or more)"),
    (["--seed", "-1"], "invalid value '-1' for '--seed' (must be 0 or more)"),
    (
      ["--from", "-", "--seed", "1"],
      "'--seed' cannot be used with '--from' (it sets the random feed)"
    ),
    (["--bogus"], "unknown option '--bogus'"),
  ])
  func badOptionsAreUsageErrors(arguments: [String], message: String) async throws {
    let outcome = try await LoadctlProcess.run(["ticker"] + arguments)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout == [])
    let lines = outcome.stderr.split(separator: "\n").map(String.init)
    #expect(lines.first == "Error: " + message)
    #expect(lines.dropFirst().first == "Usage: loadctl ticker [options]")
  }
}
