import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `profile --exec`: a user's command as the load, torn down as a process group however the run
/// ends. Commands write their pids to a file, and the tests check `/proc` for what is left.
@Suite(.processSlots) struct ProfileExecEndToEndTests {
  /// A `--timeout` no command reaches before the harness's failsafe: the default 10 s counts the
  /// shell's own start, which a busy machine can stretch past it.
  private static let noTimeout = ["--timeout", "600s"]

  /// Shell code that writes `words` (one a line) to `directory/pids` all at once: written to a
  /// temporary name and renamed, so the test never reads a partial file.
  private static func recordPids(_ words: String, in directory: String) -> String {
    "printf '%s\\n' \(words) > \(directory)/pids.tmp && mv \(directory)/pids.tmp \(directory)/pids"
  }

  @Test func theCommandsStdoutIsTheProfile() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--exec", #"printf '{"name":"Exec"}'"#] + Self.noTimeout)
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.last?.value(at: "state.profile.name") as? String == "Exec")
    #expect(events.first?.value(at: "options.source") as? String == "exec")
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "profile")
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: schema) == [])
    }
  }

  @Test func theCommandsStderrIsShownAsItComesAndItsStdoutStaysTheProfile() async throws {
    let command = #"echo 'warn one' >&2; printf '{"name":"Exec"}'; printf 'esc \033[2J' >&2"#
    let json = try await LoadctlProcess.run(
      ["profile", "--json", "--exec", command] + Self.noTimeout)
    #expect(json.termination == .exited(0))
    let events = try JSONLines.parse(json.stdout)
    let outputs = events.filter { $0.value(at: "event") as? String == "output" }
    #expect(outputs.map { $0.value(at: "line") as? String } == ["warn one", "esc \u{1B}[2J"])
    #expect(outputs.allSatisfy { $0.value(at: "stream") as? String == "stderr" })
    #expect(outputs.allSatisfy { $0.value(at: "serial") as? Int == 1 })
    #expect(events.last?.value(at: "state.profile.name") as? String == "Exec")
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "profile")
      #expect(try await SchemaValidator.failures(of: json.stdout, schema: schema) == [])
    }
    let text = try await LoadctlProcess.run(["profile", "--exec", command] + Self.noTimeout)
    let lines = text.stdout
    #expect(lines.contains { $0.hasSuffix("  profile  #1 ! warn one") }, "\(lines)")
    #expect(lines.contains { $0.hasSuffix("  profile  #1 ! esc \\u{1B}[2J") }, "\(lines)")
  }

  @Test(arguments: [
    ("echo boom >&2; exit 3", "command failed (exit status 3): boom"),
    ("kill -TERM $$", "command failed (killed by SIGTERM)"),
    ("echo not json", "command output is not JSON"),
    (#"printf '{"nom":1}'"#, ""),
  ])
  func aFailingCommandFailsTheLoadWithItsReason(command: String, reason: String) async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--exec", command] + Self.noTimeout)
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    let message = try #require(events.last?.value(at: "state.message") as? String)
    #expect(message.hasPrefix(reason), "\(message)")
  }

  @Test func retriesRunTheCommandAgain() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run(
      [
        "profile", "--retries", "2", "--backoff", "1ms", "--exec",
        "echo $$ >> \(directory)/runs; exit 1",
      ] + Self.noTimeout)
    #expect(outcome.termination == .exited(1))
    #expect(ChildProcesses.pids(in: "\(directory)/runs").count == 3)
  }

  /// The timeout may fire before the shell has run a single line (a slow start), so the command
  /// cannot be relied on to record its pid: every process of the run carries a mark in its
  /// environment instead, and none may be alive after the run.
  @Test func aTimeoutTearsTheCommandDown() async throws {
    let mark = UUID().uuidString
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--timeout", "200ms", "--exec", "sleep 100 & exec sleep 100"],
      environment: [Self.markVariable: mark])
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.last?.value(at: "state.message") as? String == "command timed out after 200ms")
    // Orphans may wait a moment for their reaper; the failsafe bounds the wait.
    try? await Polling.until("the marked processes to end", every: .milliseconds(20)) {
      Self.liveProcesses(marked: mark).isEmpty
    }
    #expect(Self.liveProcesses(marked: mark) == [], "still running after the timeout")
  }

  /// The environment variable that marks a test's processes.
  private static let markVariable = "LOADCTL_E2E_MARK"

  /// Live processes whose environment has `LOADCTL_E2E_MARK=mark`, however they were started.
  private static func liveProcesses(marked mark: String) -> [Int32] {
    let needle = Array("\(markVariable)=\(mark)".utf8)
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
      guard ChildProcesses.isRunning(pid),
        let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/environ")
      else { return false }
      defer { try? handle.close() }
      let environment = (try? handle.readToEnd()) ?? Data()
      return environment.split(separator: 0).contains { Array($0) == needle }
    }.sorted()
  }

  /// SIGINT, SIGTERM: the run prints its final transitions and dies by the signal; the command
  /// and what it started are gone.
  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalTearsDownTheWholeGroup(signal: Int32) async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start(
      ["profile", "--exec", "sleep 100 & \(Self.recordPids("$! $$", in: directory)); wait"]
        + Self.noTimeout)
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 2)
    loadctl.send(signal: signal)
    #expect(try await loadctl.waitForExit() == .signaled(signal))
    #expect(loadctl.stdoutText.contains("loading → idle (cancelled)"))
    await ChildProcesses.expectGone(pids)
  }

  /// A command that ignores SIGTERM is killed after `--kill-after`.
  @Test func aCommandIgnoringSIGTERMIsKilledAfterTheGrace() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start(
      [
        "profile", "--kill-after", "300ms", "--exec",
        "trap '' TERM; \(Self.recordPids("$$", in: directory)); while :; do sleep 0.05; done",
      ] + Self.noTimeout)
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 1)
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    await ChildProcesses.expectGone(pids)
  }

  /// Even `kill -9` of loadctl leaves no orphan: the group's watcher takes it down.
  @Test func killingLoadctlWithSIGKILLLeavesNoOrphan() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start(
      ["profile", "--exec", "sleep 100 & \(Self.recordPids("$! $$", in: directory)); wait"]
        + Self.noTimeout)
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 2)
    loadctl.send(signal: SIGKILL)
    #expect(try await loadctl.waitForExit() == .signaled(SIGKILL))
    await ChildProcesses.expectGone(pids)
  }

  /// `kill -9` of loadctl also ends what had left the group (`setsid`, coreutils `timeout`):
  /// the watcher kills every process carrying the run's tag before its group.
  @Test func killingLoadctlWithSIGKILLEndsProcessesThatLeftTheGroup() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start(
      [
        "profile", "--exec",
        "setsid sleep 100 & a=$!; timeout 30 sleep 100 & b=$!; "
          + "\(Self.recordPids("$a $b $$", in: directory)); wait",
      ] + Self.noTimeout)
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 3)
    loadctl.send(signal: SIGKILL)
    #expect(try await loadctl.waitForExit() == .signaled(SIGKILL))
    for pid in pids {
      #expect(await ChildProcesses.waitUntilStopped(pid), "\(ChildProcesses.describe(pid))")
    }
  }

  /// A command that floods stdout: the load fails as too large, memory stays bounded, and the
  /// command is gone.
  @Test func aFloodingCommandIsCutOff() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--exec", "yes"] + Self.noTimeout)
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    let message = try #require(events.last?.value(at: "state.message") as? String)
    #expect(message.hasPrefix("command printed more than"), "\(message)")
  }

  @Test func withoutCurlURLIsUnavailable() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--url", "https://example.com/me"], environment: ["PATH": "/nonexistent"])
    #expect(outcome.termination == .exited(69))
    #expect(outcome.stdout.isEmpty)
    #expect(outcome.stderr.hasPrefix("Error: '--url' runs curl, which is not on PATH"))
    #expect(outcome.stderr.contains("--exec"))
  }
}
