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
  @Test func theCommandsStdoutIsTheProfile() async throws {
    let outcome = try await LoadctlProcess.run([
      "profile", "--json", "--exec", #"printf '{"name":"Exec"}'"#,
    ])
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.last?.value(at: "state.profile.name") as? String == "Exec")
    #expect(events.first?.value(at: "options.source") as? String == "exec")
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "profile")
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: schema) == [])
    }
  }

  @Test(arguments: [
    ("echo boom >&2; exit 3", "command failed (exit status 3): boom"),
    ("kill -TERM $$", "command failed (killed by SIGTERM)"),
    ("echo not json", "command output is not JSON"),
    (#"printf '{"nom":1}'"#, ""),
  ])
  func aFailingCommandFailsTheLoadWithItsReason(command: String, reason: String) async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--json", "--exec", command])
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    let message = try #require(events.last?.value(at: "state.message") as? String)
    #expect(message.hasPrefix(reason), "\(message)")
  }

  @Test func retriesRunTheCommandAgain() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run([
      "profile", "--retries", "2", "--backoff", "1ms", "--exec",
      "echo $$ >> \(directory)/runs; exit 1",
    ])
    #expect(outcome.termination == .exited(1))
    #expect(ChildProcesses.pids(in: "\(directory)/runs").count == 3)
  }

  @Test func aTimeoutTearsTheCommandDown() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run([
      "profile", "--json", "--timeout", "200ms", "--exec",
      "echo $$ >> \(directory)/pids; exec sleep 100",
    ])
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.last?.value(at: "state.message") as? String == "command timed out after 200ms")
    await ChildProcesses.expectGone(ChildProcesses.pids(in: "\(directory)/pids"))
  }

  /// SIGINT, SIGTERM: the run prints its final transitions and dies by the signal; the command
  /// and what it started are gone.
  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalTearsDownTheWholeGroup(signal: Int32) async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start([
      "profile", "--timeout", "600s", "--exec",
      "sleep 100 & echo $! >> \(directory)/pids; echo $$ >> \(directory)/pids; wait",
    ])
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
    let loadctl = try LoadctlProcess.start([
      "profile", "--timeout", "600s", "--kill-after", "300ms", "--exec",
      "trap '' TERM; echo $$ >> \(directory)/pids; while :; do sleep 0.05; done",
    ])
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 1)
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    await ChildProcesses.expectGone(pids)
  }

  /// Even `kill -9` of loadctl leaves no orphan: the group's watcher takes it down.
  @Test func killingLoadctlWithSIGKILLLeavesNoOrphan() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start([
      "profile", "--timeout", "600s", "--exec",
      "sleep 100 & echo $! >> \(directory)/pids; echo $$ >> \(directory)/pids; wait",
    ])
    let pids = try await ChildProcesses.waitForPids("\(directory)/pids", count: 2)
    loadctl.send(signal: SIGKILL)
    #expect(try await loadctl.waitForExit() == .signaled(SIGKILL))
    await ChildProcesses.expectGone(pids)
  }

  /// A command that floods stdout: the load fails as too large, memory stays bounded, and the
  /// command is gone.
  @Test func aFloodingCommandIsCutOff() async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--json", "--exec", "yes"])
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
