import Foundation
import Testing

/// A signal sent as soon as `start` is printed gets the final transitions and `end`.
///
/// Measured before the fix, 100 runs of `loadctl profile --json --latency 3s` sent SIGINT right
/// after the `start` line: 86 died without `end` (the signal watcher was installed after `start`,
/// concurrently with the flow) and 5 ignored the signal and ran to completion (SIG_IGN was set
/// before libdispatch's handler was registered). Under load, 10 of 150 runs signalled after the
/// first transition ignored it too. Signals are now caught before `start` is written (main's
/// self-pipe handler); this test failed 20 of 20 runs on the old code.
@Suite(.processSlots) struct SignalAfterStartRegressionTests {
  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalRightAfterStartIsHandled(signal: Int32) async throws {
    for run in 1...10 {
      let loadctl = try LoadctlProcess.start(["profile", "--json", "--latency", "600s"])
      try await loadctl.waitForLine(where: JSONEvent.matching(["event": "start"]))
      loadctl.send(signal: signal)
      #expect(try await loadctl.waitForExit() == .signaled(signal), "run \(run)")
      let events = try JSONLines.parse(loadctl.stdoutLines)
      #expect(events.last?.event == "end", "run \(run)")
      #expect(
        events.last?.string("reason") == (signal == SIGINT ? "interrupted" : "terminated"),
        "run \(run)")
    }
  }
}
