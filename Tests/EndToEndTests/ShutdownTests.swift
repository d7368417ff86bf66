import Foundation
import Testing

/// How loadctl stops when it is asked twice, or when its reader goes away.
@Suite(.processSlots) struct ShutdownTests {
  @Test func secondInterruptDoesNotWaitForSlowCleanup() async throws {
    let loadctl = try LoadctlProcess.start(
      ["profile", "--latency", "600s"], environment: ["LOADCTL_TEST_CLEANUP_DELAY": "600s"])
    try await loadctl.waitForLine(containing: "idle → loading")
    loadctl.send(signal: SIGINT)
    try await loadctl.waitForLine(containing: "loading → idle (cancelled)")
    loadctl.send(signal: SIGINT)
    // The wait's failsafe (30 s) is far below the 600 s cleanup: an exit at all proves the
    // cleanup was not waited for.
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    #expect(loadctl.stderrText == "interrupted — cancelling (Ctrl-C again to force)\n")
  }

  @Test func cleanupPastTheDeadlineIsCutShort() async throws {
    let loadctl = try LoadctlProcess.start(
      ["profile", "--json", "--latency", "600s"],
      environment: ["LOADCTL_TEST_CLEANUP_DELAY": "600s"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["to.state": "loading"]))
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM))
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(
      events.contains { $0.value(at: "to.state") as? String == "idle" },
      "the final transition was flushed before the forced exit")
    #expect(events.last?.event != "end", "cleanup never finished, so no end event")
  }

  /// Runs that print without pause and far more than a pipe holds (about 1 MB each), so they
  /// can never finish before `head` has left: whenever that is, the next write meets the closed
  /// pipe.
  static let streams: [[String]] = [
    ["profile", "--fail", "x", "--retries", "1000", "--backoff", "0", "--latency", "1ms"],
    ["search", "--type", String(repeating: "swift ", count: 100), "--keystroke", "2ms"],
  ]

  /// Promptly means at the next write, not at the end of the run: an exit by SIGPIPE proves it.
  /// How long that took (printed) depends on the machine and is not asserted.
  @Test(arguments: streams)
  func closedPipeEndsQuietlyAndPromptly(arguments: [String]) async throws {
    let outcome = try await LoadctlPipeline.run(arguments + ["--json"], into: ["head", "-n", "3"])
    print(outcome)
    #expect(outcome.output.count == 3)
    #expect(outcome.upstream == .signaled(SIGPIPE))
    #expect(outcome.upstreamStderr.isEmpty)
  }
}
