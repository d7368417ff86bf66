import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `ticker --exec`: a command's stdout as the live feed, torn down as a process group however
/// the feed ends. Commands write their pids to a file, and the tests check `/proc` for what is
/// left; every wait is for output or a file, never for an amount of time.
@Suite(.processSlots) struct TickerExecEndToEndTests {
  /// Waits until `path` exists (a command's marker).
  private static func waitForFile(_ path: String) async throws {
    try await Polling.until("\(path) to appear", timeout: LoadctlProcess.defaultTimeout * 2) {
      FileManager.default.fileExists(atPath: path)
    }
  }

  /// The peak resident memory of a live process, in KiB (`VmHWM`).
  private static func peakMemory(of pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
  }

  /// Checks a whole JSON run: envelope, and the schema when `jsonschema` is installed.
  private static func expectValidRun(_ lines: [String]) async throws {
    #expect(JSONLines.envelopeProblems(of: lines, command: "ticker") == [])
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "ticker")
      #expect(try await SchemaValidator.failures(of: lines, schema: schema) == [])
    }
  }

  /// Every value read from the command is accounted for: shown, dropped, or unread (still
  /// buffered when `--count` was reached).
  @Test func everyValueProducedIsShownDroppedOrUnread() async throws {
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--count", "1000", "--exec", "yes 100.5",
    ])
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    let ticks = events.filter { $0.event == "tick" }.count
    let stopped = try #require(events.first { $0.event == "producer_stopped" })
    let (produced, dropped, unread) = (
      stopped.integer("produced") ?? -1, stopped.integer("dropped") ?? -1,
      stopped.integer("unread") ?? -1
    )
    #expect(ticks == 1000)
    #expect(dropped >= 0 && unread >= 0)
    #expect(produced == ticks + dropped + unread, "\(outcome.stdout.suffix(2))")
    let text = try await LoadctlProcess.run(["ticker", "--count", "1000", "--exec", "yes 100.5"])
    let line = try #require(text.stdout.first { $0.contains("producer stopped") })
    let numbers = line.split(separator: ":").last.map {
      $0.split(separator: ",").compactMap { Int($0.split(separator: " ").first ?? "") }
    }
    #expect(numbers.map { $0.count >= 2 } == true, "\(line)")
    #expect(numbers.map { $0[0] - ($0.count > 2 ? $0[2] : 0) - $0[1] } == 1000, "\(line)")
  }

  /// Each drop is reported before the tick that revealed it, as of the moment that tick was
  /// taken: the prices are 1, 2, 3, …, so before tick `n` with price `p` exactly `p - n` were
  /// dropped, however many the machine drops. Drops made after a waiting consumer was handed
  /// its price used to be counted before that tick (61 before tick 1, price 1).
  @Test func eachDropIsReportedBeforeTheTickThatRevealedIt() async throws {
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--buffer", "newest:1", "--exec", "seq 1 200000",
    ])
    #expect(outcome.termination == .exited(0))
    var total = 0
    var mismatches: [String] = []
    for event in try JSONLines.parse(outcome.stdout) {
      if event.event == "dropped" { total = event.integer("total") ?? -1 }
      if event.event == "tick", let n = event.integer("n"), let price = event.integer("price"),
        price - n != total
      {
        mismatches.append("tick \(n) price \(price) after \(total) dropped")
      }
    }
    #expect(mismatches.prefix(3) == [], "\(mismatches.count) ticks")
  }

  /// `--count 3` with a command that never ends: three ticks, `producer_stopped`, exit 0, and
  /// the command (and what it started) gone.
  @Test func theCountTearsDownAnEndlessCommand() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--count", "3", "--exec",
      "sleep 100 & echo $! >> \(directory)/pids; echo $$ >> \(directory)/pids; "
        + "while :; do echo 100.5; sleep 0.01; done",
    ])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr == "")
    try await Self.expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      events.map(\.event) == ["start", "tick", "tick", "tick", "producer_stopped", "end"])
    #expect(events[4].string("reason") == "consumer_finished")
    #expect(events[0].value(at: "options.source") as? String == "exec")
    #expect(events[0].value(at: "options.kill_after_ms") as? Int == 2000)
    let pids = ChildProcesses.pids(in: "\(directory)/pids")
    #expect(pids.count == 2)
    await ChildProcesses.expectGone(pids)
  }

  /// The issue's example, under dash: `$RANDOM` is empty there, so every price is 90, but the
  /// run ends after five ticks all the same.
  @Test func theIssuesExampleEnds() async throws {
    let outcome = try await LoadctlProcess.run([
      "ticker", "--exec", "while :; do echo $((RANDOM % 20 + 90)); sleep 0.1; done",
      "--count", "5",
    ])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stdout.filter { $0.contains("ticker  #") }.count == 5)
    #expect(outcome.stdout.contains { $0.contains("producer stopped (consumer finished)") })
  }

  /// Ctrl-C while the command runs: `producer_stopped` then `end`, death by SIGINT, and no
  /// process of the command left.
  @Test func sigintTearsDownTheCommand() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start([
      "ticker", "--json", "--exec",
      "echo $$ >> \(directory)/pids; while :; do echo 101; sleep 0.01; done",
    ])
    try await loadctl.waitForLine(
      where: JSONEvent.matching { $0["event"] as? String == "tick" })
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    try await Self.expectValidRun(loadctl.stdoutLines)
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(events.suffix(2).map(\.event) == ["producer_stopped", "end"])
    #expect(events.dropLast().last?.string("reason") == "cancelled")
    #expect(loadctl.leftoverProcesses() == [])
    await ChildProcesses.expectGone(ChildProcesses.pids(in: "\(directory)/pids"))
  }

  /// A command that ends by itself ends the feed, like the end of `--from` input.
  @Test func aCommandThatEndsEndsTheFeed() async throws {
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--exec", "printf '101.5\\n+5ms 102\\n99.75\\n'",
    ])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr == "")
    try await Self.expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      events.filter { $0.event == "tick" }.compactMap { $0.number("price") } == [101.5, 102, 99.75])
    #expect(events.first { $0.event == "producer_stopped" }?.string("reason") == "source_finished")
  }

  /// A failing command: its ticks are shown, then `producer_stopped` says `source_failed` with
  /// the exit status and last stderr line, stderr has the same as one `Error:` line, and the
  /// run exits 1.
  @Test(arguments: [true, false])
  func aFailingCommandIsReported(json: Bool) async throws {
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--exec", "echo 100; echo 101; echo boom >&2; exit 3"] + (json ? ["--json"] : []))
    #expect(outcome.termination == .exited(1))
    #expect(outcome.stderr == "Error: command failed (exit status 3): boom\n")
    guard json else {
      #expect(
        outcome.stdout.suffix(2).first?.hasSuffix(
          "producer stopped (source failed): 2 produced, 0 dropped") == true)
      #expect(outcome.stdout.last?.hasSuffix("dropped 0  (failed)") == true)
      return
    }
    try await Self.expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    let stopped = try #require(events.first { $0.event == "producer_stopped" })
    #expect(stopped.string("reason") == "source_failed")
    #expect(stopped.string("message") == "command failed (exit status 3): boom")
    #expect(events.last?.string("reason") == "failed")
    #expect(events.last?.integer("exit_code") == 1)
    #expect(events.last?.value(at: "summary.count") as? Int == 2)
  }

  /// `yes` floods stdout: `--count 5` still ends at once, and `yes` is gone.
  @Test func aFloodingCommandEndsWithTheCount() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--count", "5", "--exec", "echo $$ > \(directory)/pids; exec yes 100",
    ])
    #expect(outcome.termination == .exited(0))
    try await Self.expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.filter { $0.event == "tick" }.count == 5)
    #expect(
      events.first { $0.event == "producer_stopped" }?.string("reason") == "consumer_finished")
    await ChildProcesses.expectGone(ChildProcesses.pids(in: "\(directory)/pids"))
  }

  /// 12.8 MB of valid (long) price lines go through while loadctl's peak memory grows by far
  /// less: stdout is read as it is consumed, never gathered. Not under AddressSanitizer (CI sets
  /// `ASAN_OPTIONS` for that run): its quarantine keeps freed memory, so peak memory says nothing.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil))
  func aFloodKeepsMemoryBounded() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start([
      "ticker", "--exec",
      "echo 1; while [ ! -e \(directory)/go ]; do sleep 0.01; done; "
        + "yes $(printf '%016000d' 100) | head -n 800; echo > \(directory)/flooded; "
        + "exec sleep 100",
    ])
    try await loadctl.waitForLine(containing: "ticker  #1  ")
    let before = try Self.peakMemory(of: loadctl.pid)
    #expect(FileManager.default.createFile(atPath: "\(directory)/go", contents: nil))
    try await Self.waitForFile("\(directory)/flooded")
    let after = try Self.peakMemory(of: loadctl.pid)
    #expect(after - before < 6 * 1024, "peak grew from \(before) KiB to \(after) KiB")
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM))
    #expect(loadctl.leftoverProcesses() == [])
  }

  /// A command that closes stdout but keeps running: the feed ends, the command is torn down
  /// (not waited for), and that is not a failure — however the command answers the teardown's
  /// SIGTERM, dying of it or exiting with a status of its own.
  @Test(arguments: ["exec sleep 100", "trap 'exit 3' TERM; sleep 100 & wait"])
  func aCommandThatClosesStdoutIsTornDown(rest: String) async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--kill-after", "300ms", "--exec",
      "echo $$ > \(directory)/pids; echo 100; exec >&-; \(rest)",
    ])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr == "")
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.filter { $0.event == "tick" }.count == 1)
    #expect(events.first { $0.event == "producer_stopped" }?.string("reason") == "source_finished")
    await ChildProcesses.expectGone(ChildProcesses.pids(in: "\(directory)/pids"))
  }

  /// Output that is not UTF-8 is a rejected line (exit 65), not a crash; the rest still counts.
  @Test func nonUTF8LinesAreRejected() async throws {
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--exec", "printf '100\\n\\377\\376\\n101\\n'",
    ])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stderr == "Error: input line 2: not valid UTF-8\n")
    try await Self.expectValidRun(outcome.stdout)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.filter { $0.event == "tick" }.compactMap { $0.number("price") } == [100, 101])
    #expect(events.first { $0.event == "input_rejected" }?.integer("line") == 2)
  }

  @Test(arguments: [
    (["--exec", "echo 1", "--from", "-"], "'--exec' and '--from' cannot be used together"),
    (
      ["--exec", "echo 1", "--clock", "virtual"],
      "'--exec' cannot be used with '--clock virtual': real processes do not run on virtual time"
    ),
    (["--kill-after", "1s"], "'--kill-after' only applies to '--exec'"),
    (
      ["--exec", "echo 1", "--interval", "1s"],
      "'--interval' cannot be used with '--exec' (it sets the random feed)"
    ),
  ])
  func badExecOptionsAreUsageErrors(arguments: [String], message: String) async throws {
    let outcome = try await LoadctlProcess.run(["ticker"] + arguments)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout == [])
    #expect(outcome.stderr.split(separator: "\n").first.map(String.init) == "Error: " + message)
  }
}
