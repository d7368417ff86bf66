import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Real work that cannot escape, hang or outlive its command: processes that leave the command's
/// group, stopped commands, a suspended job, a reader that leaves while nothing is printed.
///
/// Commands write pids under a temporary name and rename them into place; each wait is for
/// output, an exit, a file or `/proc`, with the harness's failsafe as the only bound. Where a
/// defect would make loadctl wait for a long grace or a long timeout, the test sets that grace
/// or timeout to 600 s, so the defect shows as the failsafe firing, not as a slow pass.
@Suite(.processSlots) struct ContainedCommandsTests {
  /// Shell code that writes this shell's pid to `file` atomically.
  static func writePid(_ file: String) -> String {
    "echo $$ > \(file).tmp && mv \(file).tmp \(file)"
  }

  /// The state letter of `pid` (`R`, `S`, `T`, `Z`), or `nil` once it is gone.
  static func state(of pid: Int32) -> Character? { ChildProcesses.state(of: pid) }

  /// A process that left the command's group (`setsid`) and goes on writing to the command's
  /// stdout neither keeps the feed from ending when the command exits nor outlives it.
  @Test func anEscapedWriterNeitherHangsTheRunNorOutlivesIt() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/escaped"
    let outcome = try await LoadctlProcess.run([
      "ticker", "--json", "--kill-after", "600s", "--exec",
      "setsid sh -c '\(Self.writePid(marker)); while :; do echo 100; sleep 0.1; done' & "
        + "while [ ! -e \(marker) ]; do sleep 0.01; done",
    ])
    #expect(outcome.termination == .exited(0), "\(outcome.stdout) \(outcome.stderr)")
    let stopped = try JSONLines.parse(outcome.stdout).first { $0.event == "producer_stopped" }
    #expect(stopped?.string("reason") == "source_finished")
    let pids = ChildProcesses.pids(in: marker)
    #expect(pids.count == 1)
    await ChildProcesses.expectGone(pids)
  }

  /// `setsid` and coreutils `timeout` make groups of their own; what they run is killed when
  /// the command ends, however it ends: by itself, by `--timeout`, by Ctrl-C, and when loadctl
  /// dies at once — SIGQUIT, or a second Ctrl-C while the first waits for a command that
  /// ignores SIGTERM — which leaves no time to adopt them after their parent dies.
  ///
  /// A 1 s `--timeout` begins with the command, so on a busy machine it can come before both
  /// processes wrote their pids; that case then runs again (three times at most), since it is
  /// meant to end what was started.
  @Test(arguments: ["exits", "times out", "is interrupted", "is quit", "is interrupted twice"])
  func processesInOtherGroupsEndWithTheirCommand(how: String) async throws {
    for attempt in 1...3 {
      if try await processesInOtherGroupsEnd(how: how, lastAttempt: attempt == 3) { return }
    }
  }

  /// One run of ``processesInOtherGroupsEndWithTheirCommand(how:)``; `false` when the timeout
  /// came before both pids were written and this is not the last attempt.
  private func processesInOtherGroupsEnd(how: String, lastAttempt: Bool) async throws -> Bool {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (first, second) = ("\(directory)/setsid", "\(directory)/timeout")
    let started =
      "setsid sh -c '\(Self.writePid(first)); exec sleep 600' & "
      + "timeout 600 sh -c '\(Self.writePid(second)); exec sleep 600' & "
      + "while [ ! -e \(first) ] || [ ! -e \(second) ]; do sleep 0.01; done; "
    let rest =
      switch how {
      case "exits": "echo '{\"name\":\"n\"}'"
      case "times out": "exec sleep 600"
      case "is interrupted twice": "trap '' TERM; exec sleep 600"
      default: "exec sleep 600"
      }
    let timeout = how == "times out" ? "1s" : "600s"
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--timeout", timeout, "--kill-after", "600s", "--exec", started + rest,
    ])
    if how.hasPrefix("is ") {
      try await Polling.until("both markers") {
        FileManager.default.fileExists(atPath: first)
          && FileManager.default.fileExists(atPath: second)
      }
      loadctl.send(signal: how == "is quit" ? SIGQUIT : SIGINT)
    }
    if how == "is interrupted twice" {
      // The first one's final transition: its teardown now waits for the 600 s grace.
      try await loadctl.waitForLine(containing: #""action":"interrupt""#)
      loadctl.send(signal: SIGINT)
    }
    let expected: Termination =
      switch how {
      case "exits": .exited(0)
      case "times out": .exited(1)
      case "is quit": .signaled(SIGQUIT)
      default: .signaled(SIGINT)
      }
    #expect(try await loadctl.waitForExit() == expected, "\(loadctl.transcript)")
    let pids = ChildProcesses.pids(in: first) + ChildProcesses.pids(in: second)
    if how == "times out", pids.count < 2, !lastAttempt {
      await ChildProcesses.expectGone(pids)
      return false
    }
    #expect(pids.count == 2, "\(loadctl.transcript)")
    await ChildProcesses.expectGone(pids)
    return true
  }

  /// When loadctl dies at once, what its command started outside the group is killed where it
  /// stands, not only once adopted after the command's own death: with no wait at all at the end
  /// (`LOADCTL_TEST_ORPHAN_WAIT_MS=0`), nothing is left behind. The wait used to read its
  /// children, then their states: a command that died in between had just handed over what it
  /// started, unseen, and loadctl ended first, leaving the two processes running under init.
  @Test(arguments: ["is interrupted twice", "is quit"])
  func aForcedExitKillsWhatLeftTheGroupWithoutWaiting(how: String) async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (first, second) = ("\(directory)/setsid", "\(directory)/timeout")
    let command = "\(directory)/command"
    let loadctl = try LoadctlProcess.start(
      [
        "profile", "--json", "--timeout", "600s", "--kill-after", "600s", "--exec",
        "trap '' TERM; "
          + "setsid sh -c '\(Self.writePid(first)); exec sleep 600' & "
          + "timeout 600 sh -c '\(Self.writePid(second)); exec sleep 600' & "
          + "\(Self.writePid(command)); exec sleep 600",
      ], environment: ["LOADCTL_TEST_ORPHAN_WAIT_MS": "0"])
    // The command itself too: its group's SIGKILL is what every forced exit begins with.
    let pids =
      try await ChildProcesses.waitForPids(first, count: 1)
      + ChildProcesses.waitForPids(second, count: 1)
      + ChildProcesses.waitForPids(command, count: 1)
    if how == "is quit" {
      loadctl.send(signal: SIGQUIT)
    } else {
      loadctl.send(signal: SIGINT)
      try await loadctl.waitForLine(containing: #""action":"interrupt""#)
      loadctl.send(signal: SIGINT)
    }
    let expected: Termination = how == "is quit" ? .signaled(SIGQUIT) : .signaled(SIGINT)
    #expect(try await loadctl.waitForExit() == expected, "\(loadctl.transcript)")
    await ChildProcesses.expectGone(pids)
  }

  /// What a command starts in the background and ends on its own is reaped while the command
  /// runs: it stayed a zombie of loadctl's until the command ended, so a long feed that starts
  /// helpers filled the process table.
  @Test func anOrphanThatEndsIsReapedWhileItsCommandRuns() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = "\(directory)/orphans"
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--timeout", "600s", "--kill-after", "600s", "--exec",
      "for i in 1 2 3 4 5; do (sh -c 'echo $$ >> \(file)' &); done; exec sleep 600",
    ])
    let pids = try await ChildProcesses.waitForPids(file, count: 5)
    await ChildProcesses.expectGone(pids)
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
  }

  /// A stopped command acts on teardown's SIGTERM at once (SIGCONT comes with it), not after
  /// the whole `--kill-after`: one Ctrl-C ends the run with its `end`.
  @Test func aStoppedCommandIsTornDownWithoutTheGrace() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/pid"
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--timeout", "600s", "--kill-after", "600s", "--exec",
      "\(Self.writePid(marker)); kill -STOP $$",
    ])
    let pid = try #require(try await ChildProcesses.waitForPids(marker, count: 1).first)
    try await Polling.until("the command stopped") { Self.state(of: pid) == "T" }
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
    let end = try JSONLines.parse(loadctl.stdoutLines).last
    #expect(end?.event == "end" && end?.string("reason") == "interrupted", "\(loadctl.transcript)")
    #expect(!ChildProcesses.exists(pid))
  }

  /// One Ctrl-C with a command that ignores SIGTERM: the whole grace is waited for, then the
  /// final transitions and `end`, which comes only once the command is gone.
  @Test func ctrlCWaitsForTheWholeGraceAndStillEnds() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/pid"
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--timeout", "600s", "--kill-after", "3s", "--exec",
      "trap '' TERM; \(Self.writePid(marker)); while :; do sleep 0.05; done",
    ])
    let pid = try #require(try await ChildProcesses.waitForPids(marker, count: 1).first)
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
    let end = try JSONLines.parse(loadctl.stdoutLines).last
    #expect(end?.event == "end", "\(loadctl.transcript)")
    #expect(end?.string("reason") == "interrupted")
    // SIGKILL comes no earlier than --kill-after after the signal, and `end` after it.
    #expect((end?.elapsedMilliseconds ?? 0) >= 3000, "\(loadctl.transcript)")
    #expect(!ChildProcesses.exists(pid))
  }

  /// Suspending loadctl (SIGTSTP, as Ctrl-Z sends) suspends its command too; continuing it
  /// continues the command.
  @Test func suspendingLoadctlSuspendsItsCommand() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/pid"
    let loadctl = try LoadctlProcess.start([
      "ticker", "--json", "--exec",
      "\(Self.writePid(marker)); while :; do echo 100; sleep 0.05; done",
    ])
    let pid = try #require(try await ChildProcesses.waitForPids(marker, count: 1).first)
    let group = getpgid(pid)
    // Stopped (T) or, for a shell that was in `vfork` when its child was stopped, blocked (D)
    // until the child goes on: no process of the command's group can make progress.
    let suspended = { (pid: Int32) in Self.state(of: pid).map { "TD".contains($0) } ?? true }
    loadctl.send(signal: SIGTSTP)
    do {
      try await Polling.until("loadctl and its command stopped") {
        Self.state(of: loadctl.pid) == "T"
          && ProcessGroup.liveMembers(of: group).allSatisfy(suspended)
      }
    } catch {
      let states = ProcessGroup.liveMembers(of: group).map { "\($0): \(Self.state(of: $0) ?? "-")" }
      Issue.record(
        """
        \(error); loadctl \(Self.state(of: loadctl.pid).map(String.init) ?? "gone"), \
        command group \(states)
        \(loadctl.transcript)
        """)
      loadctl.sendToGroup(signal: SIGKILL)
      return
    }
    loadctl.send(signal: SIGCONT)
    try await Polling.until("the command continued") {
      Self.state(of: pid).map { $0 != "T" } ?? true
    }
    let ticks = loadctl.stdoutLines.count
    try await Polling.until("a tick after continuing") { loadctl.stdoutLines.count > ticks }
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
    await ChildProcesses.expectGone([pid])
  }

  /// A reader that leaves while loadctl prints nothing (a slow command) ends the run at once, by
  /// SIGPIPE, as a write would.
  /// (Text mode: its one line before the command ends is the one `head` takes.)
  @Test func aClosedStdoutEndsARunThatPrintsNothing() async throws {
    let outcome = try await LoadctlPipeline.run(
      ["profile", "--timeout", "600s", "--exec", "exec sleep 600"], into: ["head", "-n", "1"])
    #expect(outcome.upstream == .signaled(SIGPIPE), "\(outcome)")
    #expect(outcome.upstreamStderr == "")
    #expect(outcome.output.count == 1)
  }
}
