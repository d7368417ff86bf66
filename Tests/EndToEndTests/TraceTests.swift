import Foundation
import Testing

/// `--trace` and `--timeline`: the trace file follows the Chrome Trace Event Format and is complete
/// however the run ends; the timeline is the same picture for the same virtual-time input.
@Suite(.processSlots) struct TraceTests {
  /// Runs that exercise effects, one per flow (more rows as flows land).
  static let runs: [[String]] = [
    ["profile", "--fail", "x", "--retries", "2", "--backoff", "200ms", "--latency", "300ms"],
    ["profile", "--latency", "200ms"],
    ["search", "--type", "swiftui", "--keystroke", "80ms", "--seed", "1"],
    [
      "search", "--type", "task", "--keystroke", "50ms", "--naive", "--jitter", "300ms", "--seed",
      "3",
    ],
    ["ticker", "--count", "5", "--seed", "42"],
    ["timer", "--interval", "100ms", "--ticks", "5"],
    ["counter", "--policy", "latest", "d", "d", "+"],
  ]

  @Test(arguments: runs)
  func traceFileIsValidChromeTrace(arguments: [String]) async throws {
    let file = try TemporaryFile("")
    let outcome = try await LoadctlProcess.run(
      arguments + ["--clock", "virtual", "--trace", file.path])
    #expect(outcome.stderr.isEmpty)
    let problems = try TraceChecker.problems(inFile: file.path)
    #expect(problems == [])
  }

  @Test func traceIsCompleteAfterSIGINT() async throws {
    let file = try TemporaryFile("")
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--latency", "600s", "--trace", file.path,
    ])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "effect_started"]))
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    #expect(try TraceChecker.problems(inFile: file.path) == [])
    let trace = try TraceChecker.load(file.path)
    let fetch = trace.first { ($0["name"] as? String) == "fetch#1" }
    #expect((fetch?["args"] as? [String: Any])?["outcome"] as? String == "cancelled")
    let sleeps = trace.filter { ($0["cat"] as? String) == "sleep" }
    #expect(sleeps.count == 1, "the fetch's sleep is its own slice")
  }

  /// SIGQUIT cancels nothing and dies at once, and still leaves the trace of what happened up to
  /// it, as a forced exit does (it used to leave an empty file).
  @Test func traceIsWrittenAtSIGQUIT() async throws {
    let file = try TemporaryFile("")
    let loadctl = try LoadctlProcess.start([
      "profile", "--json", "--latency", "600s", "--trace", file.path,
    ])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "effect_started"]))
    loadctl.send(signal: SIGQUIT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGQUIT))
    // The fetch it died in is a slice up to the death, `unfinished`, as at a forced exit.
    #expect(
      try TraceChecker.problems(inFile: file.path) == ["event 3: slice outcome unfinished"])
    let trace = try TraceChecker.load(file.path)
    let fetch = trace.first { ($0["name"] as? String) == "fetch#1" }
    #expect((fetch?["args"] as? [String: Any])?["outcome"] as? String == "unfinished")
    #expect(trace.contains { ($0["name"] as? String) == "load: idle → loading" })
  }

  @Test func transitionsArePointsNamedByTheirStates() async throws {
    let file = try TemporaryFile("")
    _ = try await LoadctlProcess.run(
      ["profile", "--latency", "1s", "--clock", "virtual", "--trace", file.path])
    let names = try TraceChecker.load(file.path).compactMap { event -> String? in
      (event["ph"] as? String) == "i" ? event["name"] as? String : nil
    }
    #expect(names.contains("load: idle → loading"))
    #expect(names.contains("load_response: loading → loaded"))
  }

  /// On virtual time an effect and its sleep start at the same moment: the effect comes first in
  /// the file, so viewers that break ties by file order nest the sleep in it (it came second).
  @Test func anEffectComesBeforeItsSleepAtTheSameStart() async throws {
    let file = try TemporaryFile("")
    _ = try await LoadctlProcess.run(
      ["profile", "--latency", "1s", "--clock", "virtual", "--trace", file.path])
    let slices = try TraceChecker.load(file.path).filter { ($0["ph"] as? String) == "X" }
    let fetch = try #require(slices.firstIndex { ($0["name"] as? String) == "fetch#1" })
    let sleep = try #require(slices.firstIndex { ($0["cat"] as? String) == "sleep" })
    #expect(slices[fetch]["ts"] as? Double == slices[sleep]["ts"] as? Double)
    #expect(fetch < sleep, "\(slices)")
  }

  @Test func sameInputGivesTheSameTraceFile() async throws {
    let first = try TemporaryFile("")
    let second = try TemporaryFile("")
    for file in [first, second] {
      _ = try await LoadctlProcess.run(
        Self.runs[0] + ["--clock", "virtual", "--trace", file.path])
    }
    let one = try String(contentsOfFile: first.path, encoding: .utf8)
    #expect(!one.isEmpty)
    #expect(one == (try String(contentsOfFile: second.path, encoding: .utf8)))
  }

  @Test func timelineOfRetriesIsGolden() async throws {
    let outcome = try await LoadctlProcess.run(
      Self.runs[0] + ["--clock", "virtual", "--timeline"], environment: ["COLUMNS": "60"])
    #expect(
      outcome.stderr == """
                  0s                                        1.500s
        fetch     █████████✗      ██████████✗            ██████████✗
        backoff            ███████✓         █████████████✓
                  █ running  ✓ finished  ╳ cancelled  ✗ failed

        """)
  }

  /// A narrow terminal: the two times of the header stay apart, the label is cut to a third of
  /// the width, and the legend is wrapped (it was drawn on one 64-column line, the times run
  /// together as `0s0.200s`, and rows were 30 columns whatever `COLUMNS` said).
  @Test func timelineKeepsToANarrowWidth() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--delay", "200ms", "--timeline", "d", "--clock", "virtual"],
      environment: ["COLUMNS": "30"])
    #expect(
      outcome.stderr == """
                    0s        0.200s
        delayed_in  █████████████████✓
                    █ running
                    ✓ finished
                    ╳ cancelled
                    ✗ failed

        """)
    for columns in [20, 25, 30, 40] {
      let narrow = try await LoadctlProcess.run(
        ["counter", "--delay", "200ms", "--timeline", "d", "d", "--clock", "virtual"],
        environment: ["COLUMNS": "\(columns)"])
      for line in narrow.stderr.split(separator: "\n") {
        #expect(line.count <= columns, "\(columns): \(line)")
      }
    }
  }

  /// The trace is written before `end` is printed, so `end` says the status the process exits
  /// with (it said 0 while the process exited 74), and a trace that is written holds that `end`.
  @Test func endSaysTheStatusOfAFailedTrace() async throws {
    let failed = try await LoadctlProcess.run(
      ["counter", "+", "--clock", "virtual", "--json", "--trace", "/dev/full"])
    #expect(failed.termination == .exited(74))
    let end = try #require(try JSONLines.parse(failed.stdout).last)
    #expect(end.event == "end")
    #expect(end["exit_code"] as? Int == 74)
    let file = try TemporaryFile("")
    let written = try await LoadctlProcess.run(
      ["counter", "+", "--clock", "virtual", "--json", "--trace", file.path])
    #expect(written.termination == .exited(0))
    let traced = try #require(
      try TraceChecker.load(file.path).last { $0["name"] as? String == "end" })
    #expect((traced["args"] as? [String: Any])?["exit_code"] as? Int == 0)
    // A recording that cannot be written: the trace's `end` says 74 too (it said 0).
    let unrecorded = try await LoadctlProcess.run(
      [
        "counter", "+", "--clock", "virtual", "--json", "--record", "/dev/full", "--trace",
        file.path,
      ])
    #expect(unrecorded.termination == .exited(74))
    #expect(try JSONLines.parse(unrecorded.stdout).last?["exit_code"] as? Int == 74)
    let tracedFailure = try #require(
      try TraceChecker.load(file.path).last { $0["name"] as? String == "end" })
    #expect((tracedFailure["args"] as? [String: Any])?["exit_code"] as? Int == 74)
  }

  /// A trace into a FIFO is written after `end` is printed: a reader that waits for `end` before
  /// it opens the FIFO gets both (it waited for ever: the trace's open came first and blocked).
  @Test func aTraceIntoAFIFOComesAfterEnd() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let fifo = "\(directory)/trace.fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let loadctl = try LoadctlProcess.start(
      ["counter", "+", "--clock", "virtual", "--json", "--trace", fifo])
    try await loadctl.waitForLine(containing: #""event":"end""#)
    let reader = try LoadctlProcess.start(executable: "/bin/cat", arguments: [fifo])
    #expect(try await loadctl.waitForExit() == .exited(0), "\(loadctl.transcript)")
    #expect(try await reader.waitForExit() == .exited(0))
    #expect(reader.stdoutText.contains(#""traceEvents""#))
  }

  /// A file named on the command line that cannot be used is bad input data (65), whether
  /// loadctl reads it (`--file`, `--input`) or writes it (`--trace`).
  @Test func unwritableTraceFileIsBadInput() async throws {
    let outcome = try await LoadctlProcess.run([
      "profile", "--trace", "/nonexistent-dir/trace.json",
    ])
    #expect(outcome.termination == .exited(65))
    #expect(
      outcome.stderr
        == "Error: cannot write trace file '/nonexistent-dir/trace.json': No such file or directory\n"
    )
  }
}

/// Checks a trace file against the parts of the Trace Event Format that viewers rely on.
enum TraceChecker {
  static func load(_ path: String) throws -> [[String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return document?["traceEvents"] as? [[String: Any]] ?? []
  }

  static func problems(inFile path: String) throws -> [String] {
    let events = try load(path)
    var problems: [String] = []
    if events.isEmpty { problems.append("no traceEvents") }
    var lastInstant = -1.0
    for (index, event) in events.enumerated() {
      guard let phase = event["ph"] as? String, ["X", "i", "M"].contains(phase) else {
        problems.append("event \(index): bad ph \(event["ph"] ?? "nil")")
        continue
      }
      for key in ["name", "pid", "tid"] where event[key] == nil {
        problems.append("event \(index): no \(key)")
      }
      if phase == "M" { continue }
      guard let ts = event["ts"] as? Double, ts >= 0 else {
        problems.append("event \(index): no ts")
        continue
      }
      if phase == "X" {
        guard let dur = event["dur"] as? Double, dur >= 0 else {
          problems.append("event \(index): slice without a duration (never ended)")
          continue
        }
        let outcome = (event["args"] as? [String: Any])?["outcome"] as? String
        if !["finished", "cancelled", "failed"].contains(outcome ?? "") {
          problems.append("event \(index): slice outcome \(outcome ?? "nil")")
        }
      } else {
        if ts < lastInstant { problems.append("event \(index): instant events out of order") }
        lastInstant = ts
      }
    }
    return problems
  }
}
