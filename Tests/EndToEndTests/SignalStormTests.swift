import Foundation
import Testing

/// Signals at random moments: whenever loadctl is stopped, it ends cleanly and says so.
///
/// Each flow is started with `--json`, and after a random number of events (from a seeded
/// generator, so a failure can be replayed) receives SIGINT or SIGTERM. Every run must die by that
/// signal, end with an `end` event giving the right reason, print only valid JSON lines with
/// consecutive `seq`, print nothing on stderr, and leave no process behind. The suite runs only
/// when `LOADCTL_STORM=N` is set (N runs per flow and signal); CI runs it on its own, after the
/// main suite, because under the main suite's parallel load a storm run of `search` or `counter`
/// sometimes misses its signal — an open problem, see CHANGELOG.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LOADCTL_STORM"] != nil))
struct SignalStormTests {
  static let runs = Int(ProcessInfo.processInfo.environment["LOADCTL_STORM"] ?? "") ?? 0

  /// A run of each flow that keeps printing events until it is stopped.
  static let flows: [[String]] = [
    ["profile", "--fail", "down", "--retries", "100000", "--backoff", "2ms", "--latency", "2ms"],
    [
      "search", "--type", String(repeating: "swiftui ", count: 200), "--keystroke", "3ms",
      "--debounce", "2ms", "--latency", "3ms",
    ],
    ["counter", "--policy", "queue", "--delay", "2ms"] + Array(repeating: "d", count: 3000),
    ["timer", "--interval", "2ms"],
  ]

  struct Case: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let signal: Int32
    var testDescription: String {
      "\(arguments[0]) \(signal == SIGINT ? "SIGINT" : "SIGTERM")"
    }
  }

  static let cases = flows.flatMap { flow in
    [Case(arguments: flow, signal: SIGINT), Case(arguments: flow, signal: SIGTERM)]
  }

  @Test(arguments: cases)
  func stoppedAtRandomMomentsEndsCleanly(storm: Case) async throws {
    var random = SplitMix(
      seed: UInt64(storm.testDescription.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
    for run in 1...Self.runs {
      let waitFor = Int(random.next() % 12) + 2
      let loadctl = try LoadctlProcess.start(storm.arguments + ["--json"])
      for _ in 1...waitFor { try await loadctl.waitForLine { _ in true } }
      let sentAfter = ContinuousClock.now - loadctl.startedAt
      loadctl.send(signal: storm.signal)
      let termination = try await loadctl.waitForExit()
      let context =
        "\(storm.testDescription), run \(run), after \(waitFor) events (sent \(sentAfter)); "
        + "printed \(loadctl.stdoutLines.count) lines, last: \(loadctl.stdoutLines.last ?? "-")"
      #expect(termination == .signaled(storm.signal), "\(context)")
      let events = try JSONLines.parse(loadctl.stdoutLines)
      #expect(JSONLines.envelopeProblems(events, command: storm.arguments[0]) == [], "\(context)")
      #expect(events.last?.event == "end", "\(context)")
      let reason = storm.signal == SIGINT ? "interrupted" : "terminated"
      #expect(events.last?.string("reason") == reason, "\(context)")
      #expect(loadctl.stderrText.isEmpty, "\(context): \(loadctl.stderrText)")
      #expect(loadctl.leftoverProcesses() == [], "\(context)")
      if storm.arguments[0] == "ticker" {
        let stopped = events.lastIndex { $0.event == "producer_stopped" }
        #expect(stopped == events.count - 2, "\(context): producer_stopped right before end")
      }
    }
  }
}

/// SplitMix64, so a storm is the same storm every time.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
