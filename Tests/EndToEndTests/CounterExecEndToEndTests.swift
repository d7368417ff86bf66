import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// `loadctl counter --exec CMD`: the four policies over real commands, failures, and teardown.
///
/// The commands record their runs (`start PID`, `end PID`) in a file of the test's own. A command
/// that must still be running when the next trigger arrives waits for a gate file that the test
/// creates only after it has seen what it acts on; nothing assumes what fits into an interval.
@Suite(.processSlots) struct CounterExecEndToEndTests {
  private static let schema = SchemaValidator.schema(for: "counter")

  /// Records `start PID`, waits for the gate, then records `end PID`.
  private static func gated(_ scratch: Scratch, then extra: String = "") -> String {
    "echo start $$ >> \(scratch.runs); while [ ! -e \(scratch.gate) ]; do sleep 0.01; done; "
      + "\(extra)echo end $$ >> \(scratch.runs)"
  }

  /// Starts `counter --json --input - --policy POLICY --exec CMD` with a pipe for `d` lines.
  private static func start(_ policy: String, _ command: String) throws -> LoadctlProcess {
    try LoadctlProcess.start(
      ["counter", "--json", "--input", "-", "--policy", policy, "--exec", command], stdin: .pipe)
  }

  /// Closes the input, waits for the exit, checks the schema; returns the parsed events.
  private static func finish(_ loadctl: LoadctlProcess, status: Int32 = 0) async throws
    -> [JSONEvent]
  {
    loadctl.closeStdin()
    #expect(try await loadctl.waitForExit() == .exited(status), "\(loadctl.transcript)")
    if SchemaValidator.isAvailable {
      #expect(
        try await SchemaValidator.failures(of: loadctl.stdoutLines, schema: schema) == [])
    }
    return try JSONLines.parse(loadctl.stdoutLines)
  }

  /// `drop` is entr: a trigger while the command runs is ignored, so two quick `d`s run it once.
  @Test func dropRunsTheCommandOnceForTwoQuickTriggers() async throws {
    let scratch = try Scratch()
    let loadctl = try Self.start("drop", Self.gated(scratch))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_started", serial: 1))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_dropped", serial: 2))
    try scratch.openGate()
    let events = try await Self.finish(loadctl)
    let runs = try scratch.runLines()
    #expect(runs.map(\.0) == ["start", "end"])
    #expect(events.last?.value(at: "state.count") as? Int == 1)
    #expect(events.contains { $0.event == "ignored" && $0.string("reason") == "already loading" })
  }

  /// `latest` is watchexec's restart: the running command's group is torn down (its shell gone
  /// from `/proc` by the time the effect ends) and the new one runs to its end.
  @Test func latestTearsTheRunningCommandDownAndRunsTheNewOne() async throws {
    let scratch = try Scratch()
    let loadctl = try Self.start("latest", Self.gated(scratch))
    try loadctl.write(toStdin: "d\n")
    let first = try await scratch.waitForRuns(1)[0].1
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_finished", serial: 1, "cancelled"))
    #expect(!ChildProcesses.isRunning(first), "the first command (pid \(first)) was torn down")
    try await loadctl.waitForLine(where: effect("effect_started", serial: 2))
    let second = try await scratch.waitForRuns(2)[1].1
    try scratch.openGate()
    let events = try await Self.finish(loadctl)
    #expect(
      try scratch.runLines().map { "\($0.0) \($0.1)" } == [
        "start \(first)", "start \(second)", "end \(second)",
      ])
    #expect(events.last?.value(at: "state.count") as? Int == 1)
  }

  /// `queue` runs them one after another: the second starts only after the first has ended.
  @Test func queueRunsTheCommandsOneAfterAnother() async throws {
    let scratch = try Scratch()
    let loadctl = try Self.start("queue", Self.gated(scratch, then: "sleep 0.1; "))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_started", serial: 1))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_queued", serial: 2))
    try scratch.openGate()
    let events = try await Self.finish(loadctl)
    let runs = try scratch.runLines()
    #expect(runs.map(\.0) == ["start", "end", "start", "end"])
    #expect(runs[0].1 == runs[1].1 && runs[2].1 == runs[3].1 && runs[0].1 != runs[2].1)
    #expect(events.last?.value(at: "state.count") as? Int == 2)
  }

  /// `parallel` runs them all at once: both have started before either may end.
  @Test func parallelRunsTheCommandsAtOnce() async throws {
    let scratch = try Scratch()
    let loadctl = try Self.start("parallel", Self.gated(scratch))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_started", serial: 1))
    try loadctl.write(toStdin: "d\n")
    try await loadctl.waitForLine(where: effect("effect_started", serial: 2))
    _ = try await scratch.waitForRuns(2)
    try scratch.openGate()
    let events = try await Self.finish(loadctl)
    #expect(try scratch.runLines().map(\.0) == ["start", "start", "end", "end"])
    #expect(events.last?.value(at: "state.count") as? Int == 2)
  }

  /// A failing command is its own action; the count stays, and the run exits 1.
  @Test func aFailingCommandIsReportedAndLeavesTheCount() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--json", "--exec", "echo boom >&2; exit 3", "+", "d"])
    #expect(outcome.termination == .exited(1))
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
    let events = try JSONLines.parse(outcome.stdout)
    let start = try #require(events.first)
    #expect(start.value(at: "options.exec") as? String == "echo boom >&2; exit 3")
    #expect(start.value(at: "options.kill_after_ms") as? Int == 2000)
    #expect(start.value(at: "options.delay_ms") == nil)
    let failed = try #require(events.first { $0.string("action") == "delayed_increment_failed" })
    #expect(failed.string("message") == "command failed (exit status 3): boom")
    #expect(failed.value(at: "to.count") as? Int == 1)
    #expect(failed.value(at: "to.is_loading") as? Bool == false)
    let end = try #require(events.last)
    #expect(end.string("reason") == "failed")
    #expect(end.integer("exit_code") == 1)
    #expect(end.integer("failed_increments") == 1)
    #expect(end.value(at: "state.count") as? Int == 1)
  }

  /// A command that prints and goes on runs to its own end and succeeds, each line an `output`
  /// event of its effect, in order.
  @Test func aCommandThatPrintsRunsToItsEnd() async throws {
    let scratch = try Scratch()
    let command =
      "echo start $$ >> \(scratch.runs); echo printed; seq 1 20000; sleep 0.1; "
      + "echo end $$ >> \(scratch.runs)"
    let outcome = try await LoadctlProcess.run(["counter", "--json", "--exec", command, "d"])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    #expect(try scratch.runLines().map(\.0) == ["start", "end"])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.contains { $0.string("action") == "increment_response" })
    #expect(events.last?.value(at: "state.count") as? Int == 1)
    let lines = events.filter { $0.event == "output" }
    #expect(lines.count == 20_001)
    #expect(lines.first?.string("line") == "printed")
    #expect(lines.last?.string("line") == "20000")
    #expect(lines.allSatisfy { $0.integer("serial") == 1 && $0.string("stream") == "stdout" })
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
  }

  /// The issue's first example: both lines shown as they come, attributed to the effect, stderr
  /// marked; with `--output hide` neither; a last line without a newline is shown too.
  @Test func theCommandsStdoutAndStderrAreShown() async throws {
    let command = "echo hello-stdout; echo warn-stderr >&2; printf 'no-newline'"
    let shown = try await LoadctlProcess.run(["counter", "--exec", command, "d"])
    #expect(shown.termination == .exited(0), "\(shown.stderr)")
    let bodies = shown.stdout.map { String($0.dropFirst(19)) }
    #expect(bodies.contains("#1 | hello-stdout"))
    #expect(bodies.contains("#1 ! warn-stderr"))
    #expect(bodies.contains("#1 | no-newline"))
    let hidden = try await LoadctlProcess.run([
      "counter", "--output", "hide", "--exec", command, "d",
    ])
    #expect(
      !hidden.stdout.contains { $0.contains("| hello-stdout") || $0.contains("! warn-stderr") })
    let json = try await LoadctlProcess.run(["counter", "--json", "--exec", command, "d"])
    let outputs = try JSONLines.parse(json.stdout).filter { $0.event == "output" }
    #expect(
      Set(outputs.map { "\($0.string("stream") ?? "") \($0.string("line") ?? "")" }) == [
        "stdout hello-stdout", "stderr warn-stderr", "stdout no-newline",
      ])
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: json.stdout, schema: Self.schema) == [])
    }
  }

  /// A command's lines are in the recording, and its replay shows them as the run did.
  @Test func aRecordedRunsOutputLinesReplay() async throws {
    let scratch = try Scratch()
    let recording = scratch.directory + "/run.jsonl"
    let run = try await LoadctlProcess.run(
      ["counter", "--json", "--record", recording, "--exec", "echo one; echo two >&2", "d"])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    let replay = try await LoadctlProcess.run(["replay", "--json", recording])
    #expect(replay.termination == .exited(0), "\(replay.stderr)")
    let outputs = { (lines: [String]) in
      try JSONLines.parse(lines).filter { $0.event == "output" }.map {
        "\($0.integer("serial") ?? 0) \($0.string("stream") ?? "") \($0.string("line") ?? "")"
      }
    }
    #expect(try Set(outputs(run.stdout)) == ["1 stdout one", "1 stderr two"])
    #expect(try outputs(replay.stdout) == outputs(run.stdout))
  }

  /// `--output failed`: a passing command shows nothing, a failing one all its lines, before
  /// its failure.
  @Test func outputFailedShowsOnlyAFailingCommandsLines() async throws {
    let passing = try await LoadctlProcess.run(
      ["counter", "--output", "failed", "--exec", "echo fine", "d"])
    #expect(passing.termination == .exited(0))
    #expect(!passing.stdout.contains { $0.contains("| fine") })
    let failing = try await LoadctlProcess.run(
      ["counter", "--output", "failed", "--exec", "echo step1; echo broke >&2; exit 2", "d"])
    #expect(failing.termination == .exited(1))
    let bodies = failing.stdout.map { String($0.dropFirst(19)) }
    let failure = try #require(bodies.firstIndex { $0.hasPrefix("delayedIncrementFailed") })
    #expect(Array(bodies[..<failure].suffix(2)) == ["#1 | step1", "#1 ! broke"])
  }

  @Test func textNamesTheCommandAndTheFailure() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--exec", "echo boom >&2; exit 3", "d"])
    #expect(outcome.termination == .exited(1))
    let bodies = outcome.stdout.map { String($0.dropFirst(19)) }
    #expect(
      bodies == [
        "delayedIncrement  isLoading: false → true",
        "effect delayed_increment#1 started ($ echo boom >&2; exit 3)",
        "#1 ! boom",
        "delayedIncrementFailed  isLoading: true → false — command failed (exit status 3): boom",
        "effect delayed_increment#1 failed",
        "count: 0, isLoading: false  (failed)",
      ])
  }

  /// Ctrl-C with a command running: the command and what it started are gone, and loadctl dies
  /// by SIGINT after its last events.
  @Test func ctrlCTearsTheRunningCommandDown() async throws {
    let scratch = try Scratch()
    // Both pids at once, renamed into place: the test never reads the file half written.
    let command =
      "sleep 300 & printf 'start %s\\n' $! $$ > \(scratch.runs).tmp "
      + "&& mv \(scratch.runs).tmp \(scratch.runs); wait"
    let loadctl = try LoadctlProcess.start(
      ["counter", "--json", "--kill-after", "500ms", "--exec", command, "d"])
    let pids = try await scratch.waitForRuns(2).map(\.1)
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    for pid in pids {
      #expect(await ChildProcesses.waitUntilStopped(pid), "pid \(pid) outlived loadctl")
    }
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(events.suffix(3).map(\.event) == ["transition", "effect_finished", "end"])
    #expect(events.last?.integer("exit_code") == 130)
    #expect(events.last?.value(at: "state.count") as? Int == 0)
    #expect(loadctl.leftoverProcesses() == [])
  }

  /// `c` stops the running command the same way, and the run then ends on its own.
  @Test func cancelTearsTheRunningCommandDown() async throws {
    let scratch = try Scratch()
    let loadctl = try Self.start("drop", Self.gated(scratch))
    try loadctl.write(toStdin: "d\n")
    let pid = try await scratch.waitForRuns(1)[0].1
    try loadctl.write(toStdin: "c\n")
    try await loadctl.waitForLine(where: effect("effect_finished", serial: 1, "cancelled"))
    #expect(!ChildProcesses.isRunning(pid))
    let events = try await Self.finish(loadctl)
    #expect(events.last?.value(at: "state.count") as? Int == 0)
    #expect(try scratch.runLines().map(\.0) == ["start"])
  }

  @Test(arguments: [
    (
      ["--exec", "true", "--clock", "virtual"],
      "Error: '--exec' cannot be used with '--clock virtual': real processes do not run on "
        + "virtual time"
    ),
    (
      ["--exec", "true", "--delay", "1s"],
      "Error: '--delay' cannot be used with '--exec': the command's own run time is the delay"
    ),
    (["--kill-after", "1s"], "Error: '--kill-after' only applies to '--exec'"),
    (["--exec", " "], "Error: empty command for '--exec'"),
  ])
  func conflictingOptionsAreUsageErrors(arguments: [String], error: String) async throws {
    let outcome = try await LoadctlProcess.run(["counter"] + arguments + ["d"])
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout == [])
    #expect(outcome.stderr.hasPrefix(error), "\(outcome.stderr)")
  }
}

/// A `waitForLine` predicate for an effect event of the delayed increment with this serial.
private func effect(_ event: String, serial: Int, _ outcome: String? = nil)
  -> @Sendable (String) -> Bool
{
  JSONEvent.matching { fields in
    fields["event"] as? String == event
      && JSONEvent.number(fields["serial"]) == Double(serial)
      && (outcome == nil || fields["outcome"] as? String == outcome)
  }
}

/// A directory of the test's own: `runs`, where commands record themselves, and `gate`.
private final class Scratch: Sendable {
  let directory: String
  var runs: String { directory + "/runs" }
  var gate: String { directory + "/gate" }

  init() throws {
    directory = NSTemporaryDirectory() + "loadctl-counter-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  /// Lets every gated command go on.
  func openGate() throws { try "".write(toFile: gate, atomically: true, encoding: .utf8) }

  /// The recorded lines as (`start` or `end`, pid).
  func runLines() throws -> [(String, Int32)] {
    let text = (try? String(contentsOfFile: runs, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ")
      guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
      return (String(parts[0]), pid)
    }
  }

  /// Waits until `count` runs have recorded their start (a failsafe ends the wait with an error).
  func waitForRuns(_ count: Int) async throws -> [(String, Int32)] {
    try await Polling.until("\(count) runs to start: \((try? runLines()) ?? [])") {
      let starts = try runLines().filter { $0.0 == "start" }
      return starts.count >= count ? starts : nil
    }
  }
}
