import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command's death is reported for what it was: loadctl's own teardown, loadctl's own end, or
/// someone else.
///
/// Found as a flaky storm case (`ticker --exec` sent SIGQUIT printed `end` with `completed` and
/// exited 0): dying by a signal, loadctl killed its command groups first, and its reader thread
/// reaped the dead command before the signal was raised; the ticker then took a SIGKILL for a
/// normal end and the process exited before it could die by its signal. A loaded machine makes
/// that moment long; `LOADCTL_TEST_DEATH_DELAY_MS` makes it long on purpose.
@Suite(.processSlots) struct KilledCommandRegressionTests {
  static let endless = "while :; do echo 100; sleep 0.005; done"

  /// Dying by SIGQUIT, loadctl prints nothing more about its command and dies by SIGQUIT,
  /// however long its last moment lasts.
  @Test func dyingBySignalDoesNotReportTheCommandsDeath() async throws {
    let loadctl = try LoadctlProcess.start(
      ["ticker", "--json", "--exec", Self.endless],
      environment: ["LOADCTL_TEST_DEATH_DELAY_MS": "300"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "tick"]))
    loadctl.send(signal: SIGQUIT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGQUIT), "\(loadctl.transcript)")
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(!events.contains { $0.event == "end" }, "\(loadctl.transcript)")
    #expect(loadctl.stderrText == "", "\(loadctl.transcript)")
    #expect(loadctl.leftoverProcesses() == [])
  }

  /// A command killed from outside (SIGKILL or SIGTERM to its group) failed: only loadctl's own
  /// teardown is a normal end.
  @Test(arguments: [SIGKILL, SIGTERM])
  func aCommandKilledByAnotherProcessFailed(signal: Int32) async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = "\(directory)/pid"
    let loadctl = try LoadctlProcess.start([
      "ticker", "--json", "--exec",
      "echo $$ > \(marker).tmp && mv \(marker).tmp \(marker); "
        + Self.endless,
    ])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "tick"]))
    let pid = try #require(try await ChildProcesses.waitForPids(marker, count: 1).first)
    let group = getpgid(pid)
    #expect(group > 0 && group != loadctl.pid)
    kill(-group, signal)
    #expect(try await loadctl.waitForExit() == .exited(1), "\(loadctl.transcript)")
    let name = Termination.name(ofSignal: signal)
    #expect(loadctl.stderrText == "Error: command failed (killed by \(name))\n")
    let end = try JSONLines.parse(loadctl.stdoutLines).last
    #expect(end?.event == "end" && end?.string("reason") == "failed", "\(loadctl.transcript)")
  }
}
