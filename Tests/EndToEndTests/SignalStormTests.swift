import Foundation
import Testing

/// Signals at random moments: whenever loadctl is stopped, it ends cleanly and says so.
///
/// Each flow is started with `--json`, and after a random number of events (from a seeded
/// generator, so a failure can be replayed) receives SIGINT, SIGTERM, SIGHUP or SIGQUIT. Every run
/// must die by that signal, print only valid JSON lines with consecutive `seq`, print nothing on
/// stderr, and leave no process behind. All but SIGQUIT end with an `end` event giving the right
/// reason, and a ticker must print `producer_stopped` right before it; SIGQUIT ends at once,
/// without `end`. `swift test` makes 2 runs per flow and signal;
/// `LOADCTL_STORM=N` makes N (CI runs 10 more in a step of their own; `LOADCTL_STORM=40` is the
/// figure in the notes).
///
/// No flow can end before its signal, however late the test gets to send it: the ones that read
/// input (`search`, `counter`) get it from a pipe the test keeps open, so after their scripted
/// lines they wait for more; the others run until stopped.
@Suite(.processSlots) struct SignalStormTests {
  static let runs = Int(ProcessInfo.processInfo.environment["LOADCTL_STORM"] ?? "") ?? 2

  /// A run of each flow that keeps printing events until it is stopped, and the lines written
  /// to its standard input (kept open) if it reads any.
  static let flows: [(arguments: [String], stdin: String?)] = [
    (
      ["profile", "--fail", "down", "--retries", "100000", "--backoff", "2ms", "--latency", "2ms"],
      nil
    ),
    (["search", "--input", "-", "--debounce", "2ms", "--latency", "3ms"], searchLines),
    (
      ["counter", "--policy", "queue", "--delay", "2ms", "--input", "-"],
      String(repeating: "+1ms d\n", count: 2000)
    ),
    (["timer", "--interval", "2ms"], nil),
    (["ticker", "--interval", "2ms"], nil),
    // The same flows with real child processes: every group must be gone when loadctl is.
    (
      [
        "profile", "--exec", "sleep 0.002; exit 1", "--retries", "100000", "--backoff", "2ms",
        "--timeout", "600s",
      ],
      nil
    ),
    (
      [
        "search", "--input", "-", "--debounce", "2ms", "--timeout", "600s", "--exec",
        "printf '%s\\n' {query}",
      ],
      searchLines
    ),
    (
      ["counter", "--policy", "latest", "--exec", "sleep 0.005", "--input", "-"],
      String(repeating: "+1ms d\n", count: 2000)
    ),
    (["ticker", "--exec", "while :; do echo 100; sleep 0.002; done"], nil),
  ]

  /// 400 keystrokes 3 ms apart, typing and retyping a query: one search box per line.
  static let searchLines: String = {
    let query = Array("swiftui concurrency")
    var lines = ""
    for keystroke in 0..<400 {
      lines += "+3ms " + String(query.prefix(keystroke % query.count + 1)) + "\n"
    }
    return lines
  }()

  struct Case: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let stdin: String?
    let signal: Int32
    var testDescription: String {
      let exec = arguments.contains("--exec") ? " --exec" : ""
      return "\(arguments[0])\(exec) \(Termination.name(ofSignal: signal))"
    }

    /// The `end` event's reason, or `nil` for a signal that ends the process without one.
    var reason: String? {
      switch signal {
      case SIGINT: "interrupted"
      case SIGTERM: "terminated"
      case SIGHUP: "hangup"
      default: nil
      }
    }
  }

  static let cases = flows.flatMap { flow in
    [SIGINT, SIGTERM, SIGHUP, SIGQUIT].map {
      Case(arguments: flow.arguments, stdin: flow.stdin, signal: $0)
    }
  }

  /// Processes whose environment holds `tag`, once there are none or the failsafe ends the wait
  /// (the orphans' reaper may take a moment).
  static func processesTagged(_ tag: String) async -> [Int32] {
    let tagged = {
      ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [])
        .compactMap(Int32.init).filter { pid in
          guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else {
            return false
          }
          return data.split(separator: 0).contains { $0.elementsEqual(tag.utf8) }
        }
    }
    _ = try? await Polling.until("no process tagged \(tag)", every: .milliseconds(20)) {
      tagged().isEmpty
    }
    return tagged()
  }

  @Test(arguments: cases)
  func stoppedAtRandomMomentsEndsCleanly(storm: Case) async throws {
    var random = SplitMix(
      seed: UInt64(storm.testDescription.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))
    for run in 0..<Self.runs {
      let waitFor = Int(random.next() % 12) + 2
      // Children inherit the environment: the tag finds them in /proc even after reparenting.
      let tag = "LOADCTL_STORM_TAG=\(UUID().uuidString)"
      let loadctl = try LoadctlProcess.start(
        storm.arguments + ["--json"], stdin: storm.stdin == nil ? .null : .pipe,
        environment: ["LOADCTL_STORM_TAG": String(tag.dropFirst("LOADCTL_STORM_TAG=".count))])
      if let lines = storm.stdin { try loadctl.write(toStdin: lines) }
      for _ in 1...waitFor { try await loadctl.waitForLine { _ in true } }
      let sentAfter = ContinuousClock.now - loadctl.startedAt
      loadctl.send(signal: storm.signal)
      let termination = try await loadctl.waitForExit()
      let context =
        "\(storm.testDescription), run \(run), after \(waitFor) events (sent \(sentAfter))\n"
        + loadctl.transcript
      #expect(termination == .signaled(storm.signal), "\(context)")
      let events = try JSONLines.parse(loadctl.stdoutLines)
      let problems = JSONLines.envelopeProblems(events, command: storm.arguments[0])
      // SIGQUIT ends the process without an `end` event; everything else must hold.
      let expected = storm.reason == nil ? problems.filter { $0.hasSuffix("expected end") } : []
      #expect(problems == expected, "\(context)")
      #expect(loadctl.stderrText.isEmpty, "\(context): \(loadctl.stderrText)")
      #expect(loadctl.leftoverProcesses() == [], "\(context)")
      #expect(await Self.processesTagged(tag) == [], "\(context): child processes left behind")
      guard let reason = storm.reason else {
        #expect(events.last?.event != "end", "\(context)")
        continue
      }
      #expect(events.last?.event == "end", "\(context)")
      #expect(events.last?.string("reason") == reason, "\(context)")
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
