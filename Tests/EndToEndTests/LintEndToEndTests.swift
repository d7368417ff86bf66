import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The schema of `command`'s events, found from this file's path (`Tests/EndToEndTests/`).
private func schema(_ command: String) -> URL {
  URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("docs/schema/\(command).schema.json")
}

/// The `warning[NAME]:` lines of a run's stderr.
private func warningLines(_ stderr: String) -> [String] {
  stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning[") }
}

/// `count` lines of `line`, as an `--input` script.
private func script(_ line: String, _ count: Int) -> String {
  String(repeating: line + "\n", count: count)
}

/// Each lint both ways, through the real binary: a run that raises it, and its near miss that
/// stays silent. On virtual time where the flow allows it, so the outcome is exact.
@Suite(.processSlots) struct LintEndToEndTests {
  /// One `d` every 0.6 s, each taking 1 s, under `queue`: the backlog grows.
  @Test func aGrowingQueueRaisesBacklogOnce() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--clock", "virtual", "--policy", "queue", "--input", "-"],
      stdin: .text(script("+600ms d", 20)))
    #expect(outcome.termination == .exited(0))
    let lines = warningLines(outcome.stderr)
    #expect(lines.count == 1, "one line per lint and subject: \(lines)")
    #expect(lines.first?.hasPrefix(#"warning[backlog]: "#) == true)
    #expect(lines.first?.contains("use latest or drop") == true)
  }

  /// Ten at once: a long queue, drained, never growing after the burst.
  @Test func aBurstThatDrainsRaisesNothing() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--clock", "virtual", "--policy", "queue"] + Array(repeating: "d", count: 10))
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// `--deny`: the run ends as it would, its `end` counts the lint, and the status is 3; the
  /// `warning` event is in the schema.
  @Test func aDeniedLintEndsWithStatusThree() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "counter", "--clock", "virtual", "--policy", "queue", "--input", "-", "--json", "--deny",
        "starved,backlog",
      ],
      stdin: .text(script("+600ms d", 20)))
    #expect(outcome.termination == .exited(3))
    let events = try JSONLines.parse(outcome.stdout)
    let warnings = events.filter { $0.event == "warning" }
    #expect(warnings.map { $0.string("lint") } == ["backlog"])
    #expect(warnings.first?.string("subject") == "delayed_increment")
    let end = try #require(events.last)
    #expect(end.event == "end")
    #expect(end.value(at: "exit_code") as? Int == 3)
    #expect(end.string("reason") == "completed")
    #expect((end.value(at: "warnings.backlog") as? Int ?? 0) >= 1)
    #expect(warningLines(outcome.stderr) == [], "with --json the warning is an event")
    if SchemaValidator.isAvailable {
      #expect(
        try await SchemaValidator.failures(of: outcome.stdout, schema: schema("counter")) == [])
    }
  }

  /// `--allow` silences a lint: nothing printed, nothing counted, and `--deny all` then has
  /// nothing to deny.
  @Test(arguments: ["backlog", "all", "starved,backlog"])
  func anAllowedLintIsSilent(allowed: String) async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "counter", "--clock", "virtual", "--policy", "queue", "--input", "-", "--json",
        "--allow", allowed, "--deny", "all",
      ],
      stdin: .text(script("+600ms d", 20)))
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.filter { $0.event == "warning" }.isEmpty)
    #expect(events.last?.value(at: "warnings") == nil)
  }

  /// Keys faster than the debounce for four seconds: no search ever runs, and that is the
  /// debounce doing its job, not starvation; `--deny all` has nothing to deny.
  @Test(arguments: ["50ms", "100ms", "150ms", "250ms"])
  func typingFasterThanTheDebounceRaisesNothing(keystroke: String) async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--clock", "virtual", "--type", String(repeating: "ab", count: 20),
        "--keystroke", keystroke, "--deny", "all",
      ])
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// An ordinary question typed at the default pace.
  @Test func typingAQuestionRaisesNothing() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--type", "how do I cancel a task group", "--clock", "virtual", "-q", "--deny",
        "all",
      ])
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// A query every 400 ms against a command that takes a second, with no debounce: every command
  /// is superseded before it completes, for longer than 3 s. Real time: the gaps only grow
  /// under load, and the command's second stays longer than any of them.
  @Test func commandsSupersededBeforeTheyCompleteRaiseStarved() async throws {
    let queries = (1...12).map { "+400ms q\($0)\n" }.joined()
    let outcome = try await LoadctlProcess.run(
      ["search", "--input", "-", "--debounce", "0", "--exec", "sleep 1; echo {query}", "-q"],
      stdin: .text(queries))
    #expect(outcome.termination == .exited(0))
    let lines = warningLines(outcome.stderr)
    #expect(lines.count == 1, "\(outcome.stderr)")
    #expect(lines.first?.hasPrefix(#"warning[starved]: new work has superseded "request""#) == true)
  }

  /// Keys just slower than the debounce, against a backend that answers within the pause:
  /// every pause lets a search start and complete.
  @Test func typingJustSlowerThanTheDebounceRaisesNothing() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--clock", "virtual", "--type", String(repeating: "ab", count: 10),
        "--keystroke", "350ms", "--debounce", "300ms", "--latency", "40ms", "--jitter", "0ms",
      ])
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// The same keys against the default backend, slower than the pause: each request starts
  /// and is superseded by the next key before it completes, for seven seconds.
  @Test func requestsSupersededAfterEachPauseRaiseStarved() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--clock", "virtual", "--type", String(repeating: "ab", count: 10),
        "--keystroke", "350ms", "--debounce", "300ms",
      ])
    #expect(outcome.termination == .exited(0))
    let lines = warningLines(outcome.stderr)
    #expect(lines.count == 1, "\(outcome.stderr)")
    #expect(lines.first?.hasPrefix(#"warning[starved]: new work has superseded "request""#) == true)
  }

  @Test func anUnknownLintIsAUsageError() async throws {
    let outcome = try await LoadctlProcess.run(["counter", "--deny", "backlog,bogus", "+"])
    #expect(outcome.termination == .exited(64))
    #expect(
      outcome.stderr.hasPrefix(
        "Error: invalid lint 'bogus' for '--deny' (choose from needs-sigkill, left-behind, "
          + "backlog, starved, dropped, late, all)\n"))
  }

  /// A timer whose process was stopped for half a second: the tick after it is late. The wait
  /// is a least (under load the stop only lasts longer), and the timer runs until the warning
  /// has been seen, then is interrupted.
  @Test func aStoppedTimerRaisesLate() async throws {
    let process = try LoadctlProcess.start(["timer", "--interval", "100ms", "--no-input"])
    try await process.waitForLine(containing: "tick")
    try await process.stop(by: SIGSTOP, forAtLeast: .milliseconds(500))
    process.send(signal: SIGCONT)
    try await process.waitForStderr(containing: "warning[late]: a timer tick ran ")
    process.send(signal: SIGINT)
    #expect(try await process.waitForExit() == .signaled(SIGINT))
    #expect(warningLines(process.stderrText).count == 1, "repeats are counted, not printed")
  }

  /// The same stop by Ctrl-Z and `fg` (SIGTSTP, then SIGCONT): the tick that waited, waited for
  /// the person, so no `late` (a pause made `--deny late` end with 3).
  @Test func aTimerSuspendedAndContinuedRaisesNothing() async throws {
    let process = try LoadctlProcess.start(
      ["timer", "--interval", "100ms", "--no-input", "--json"])
    try await process.waitForLine(where: Self.tick(atLeast: 1))
    // The stop must last past the threshold (200 ms).
    try await process.stop(by: SIGTSTP, forAtLeast: .milliseconds(500))
    // Every line before the pause has been read: the process is stopped.
    let before =
      try JSONLines.parse(process.stdoutLines).compactMap {
        $0.value(at: "to.ticks") as? Int
      }.max() ?? 1
    process.send(signal: SIGCONT)
    // Ticks after the pause: the late one and two more.
    try await process.waitForLine(where: Self.tick(atLeast: before + 3))
    process.send(signal: SIGINT)
    #expect(try await process.waitForExit() == .signaled(SIGINT))
    // The tick that waited through the pause was late past the threshold: without the pause
    // taken into account, it would have raised `late`.
    // `before` may miss a tick printed just before the stop (still in loadctl's buffer, or not
    // yet read here): the late tick is one of those after it, not always the first.
    let after = try JSONLines.parse(process.stdoutLines).filter {
      ($0.value(at: "to.ticks") as? Int).map { $0 > before } ?? false
    }
    #expect(
      after.contains {
        Double($0.integer("missed") ?? 0) * 100 + ($0.number("lateness_ms") ?? 0) > 200
      }, "\(process.stdoutLines)")
    #expect(warningLines(process.stderrText) == [], "\(process.stderrText)")
    #expect(!process.stdoutLines.contains { $0.contains(#""event":"warning""#) })
  }

  /// Scripted input lines through a Ctrl-Z and `fg`: the line that waited through the pause
  /// waited for the person, so no `late`.
  @Test func inputLinesSuspendedAndContinuedRaiseNothing() async throws {
    let process = try await Self.stopScriptedCounter(by: SIGTSTP, json: true)
    let increments = process.stdoutLines.filter { $0.contains(#""action":"increment""#) }
    #expect(increments.count == 8)
    #expect(warningLines(process.stderrText) == [], "\(process.stderrText)")
    #expect(!process.stdoutLines.contains { $0.contains(#""event":"warning""#) })
  }

  /// The same lines stopped from outside (SIGSTOP): late, and the process was not paused by
  /// the person, so the lint is raised.
  @Test func inputLinesStoppedFromOutsideRaiseLate() async throws {
    let process = try await Self.stopScriptedCounter(by: SIGSTOP, json: false)
    let lines = warningLines(process.stderrText)
    #expect(lines.count == 1, "\(process.stderrText)")
    #expect(lines.first?.hasPrefix("warning[late]: input line ") == true)
  }

  /// A counter running eight `+300ms +` lines, stopped by `signal` after its first increment
  /// for long enough that the next line is late past the threshold, continued, and run to its
  /// end (status 0).
  static func stopScriptedCounter(by signal: Int32, json: Bool) async throws -> LoadctlProcess {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "lint-stop-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt")
    try script("+300ms +", 8).write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = try LoadctlProcess.start(
      ["counter", "--input", file.path] + (json ? ["--json"] : []))
    try await process.waitForLine(containing: "increment")
    // The stop must last past the threshold (200 ms) beyond the line's own 300 ms.
    try await process.stop(by: signal, forAtLeast: .milliseconds(800))
    process.send(signal: SIGCONT)
    #expect(try await process.waitForExit() == .exited(0))
    return process
  }

  /// A timer's transition to `ticks` of at least `count`.
  static func tick(atLeast count: Int) -> @Sendable (String) -> Bool {
    JSONEvent.matching { fields in
      ((fields["to"] as? [String: Any])?["ticks"] as? Int).map { $0 >= count } ?? false
    }
  }

  /// The same timer left alone, on virtual time: every tick is on time.
  @Test func aTimerLeftAloneRaisesNothing() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--clock", "virtual", "--interval", "100ms", "--ticks", "20"])
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// A feed much faster than its one-value buffer can be shown: whether values are dropped
  /// depends on the machine, but every drop is in the summary and raised `dropped` once, and a
  /// run that dropped nothing raised nothing.
  @Test func dropsAndTheDroppedLintAgree() async throws {
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--exec", "seq 1 200000", "--buffer", "newest:1", "--json"])
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    let end = try #require(events.last)
    let dropped = try #require(end.value(at: "summary.dropped") as? Int)
    let warnings = events.filter { $0.event == "warning" }
    #expect(warnings.count == (dropped > 0 ? 1 : 0))
    #expect(warnings.allSatisfy { $0.string("lint") == "dropped" })
    let drops = events.filter { $0.event == "dropped" }.count
    #expect((end.value(at: "warnings.dropped") as? Int ?? 0) == drops)
  }

  /// A regular file is pulled: the consumer's pace is the source's, nothing can be dropped.
  @Test func aFileFeedRaisesNothing() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("lint-prices-\(UUID().uuidString)").path
    try (1...50_000).map { "\($0)\n" }.joined().write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    let outcome = try await LoadctlProcess.run(
      ["ticker", "--from", path, "--buffer", "newest:1", "--quiet"])
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// `loadctl profile --exec CMD` with a 200 ms grace; `timeout` for a command still running to
  /// be torn down, the default (600 s) for one that ends by itself however slow the machine.
  private func profile(_ command: String, timeout: String = "600s") async throws
    -> LoadctlProcess.Outcome
  {
    try await LoadctlProcess.run(
      ["profile", "--exec", command, "--timeout", timeout, "--kill-after", "200ms"])
  }

  /// A command that ignores SIGTERM (its `sleep` inherits the ignored signal) outlives its grace.
  /// The teardown begins (Ctrl-C) once the command says it ignores SIGTERM: a timeout could come
  /// before the shell ran `trap`, and SIGTERM would end it at once.
  @Test func aCommandThatIgnoresSIGTERMRaisesNeedsSigkill() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/ignoring"
    let command = #"trap "" TERM; touch \#(marker); sleep 30"#
    let process = try LoadctlProcess.start(
      ["profile", "--exec", command, "--timeout", "600s", "--kill-after", "200ms"])
    try await Polling.until("the command ignores SIGTERM") {
      FileManager.default.fileExists(atPath: marker)
    }
    process.send(signal: SIGINT)
    #expect(try await process.waitForExit() == .signaled(SIGINT), "\(process.transcript)")
    #expect(
      warningLines(process.stderrText) == [
        "warning[needs-sigkill]: command '\(command)' ignored SIGTERM and was "
          + "killed after 200ms (--kill-after): make it exit on SIGTERM, or raise --kill-after "
          + "if it needs longer"
      ], "\(process.transcript)")
  }

  /// A command that takes a while but exits on SIGTERM needs no SIGKILL: torn down by its
  /// timeout, whether SIGTERM finds the shell or its `sleep`.
  @Test func aCommandThatExitsOnSIGTERMRaisesNothing() async throws {
    let outcome = try await profile("sleep 30", timeout: "300ms")
    #expect(outcome.termination == .exited(1))
    #expect(warningLines(outcome.stderr) == [])
  }

  /// A background process in the command's group, and one that left the group (`setsid`),
  /// still alive when the command ended.
  ///
  /// The command ends only once `sleep` runs (its name and environment are `sleep`'s): before,
  /// a `setsid` not yet past its own exec could still be in the group, or hide its tag.
  @Test(arguments: ["sleep 30 &", "setsid sleep 30 &"])
  func aCommandThatLeavesAProcessRunningRaisesLeftBehind(background: String) async throws {
    let outcome = try await profile(
      #"\#(background) p=$!; until [ "$(cat /proc/$p/comm)" = sleep ] "#
        + #"&& grep -q LOADCTL_COMMAND_ID /proc/$p/environ; do sleep 0.01; done; "#
        + #"echo '{"name":"x"}'"#)
    #expect(outcome.termination == .exited(0))
    let lines = warningLines(outcome.stderr)
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("warning[left-behind]: command '\(background) p=$!") == true)
  }

  /// A command that waits for what it started leaves nothing behind.
  @Test func aCommandThatWaitsForItsChildrenRaisesNothing() async throws {
    let outcome = try await profile(#"sleep 0.1 & wait; echo '{"name":"x"}'"#)
    #expect(outcome.termination == .exited(0))
    #expect(warningLines(outcome.stderr) == [])
  }
}
