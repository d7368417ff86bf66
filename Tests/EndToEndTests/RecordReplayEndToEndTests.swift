import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--record FILE` and `loadctl replay FILE`: a recorded run replays byte for byte with its
/// status, an edited recording diverges with a report, a killed run's recording replays what it
/// holds, bad recordings are refused in one line, and secrets never reach the file.
///
/// Real commands wait for gate files the test creates only after it has seen what it acts on;
/// every recording made here is checked against docs/schema/recording.schema.json.
@Suite(.processSlots) struct RecordReplayEndToEndTests {
  private static let schema = SchemaValidator.repositoryRoot()
    .appendingPathComponent("docs/schema/recording.schema.json")

  /// Records `start PID`, waits for the gate, then records `end PID`.
  private static func gated(_ scratch: Scratch) -> String {
    "echo start $$ >> \(scratch.runs); while [ ! -e \(scratch.gate) ]; do sleep 0.01; done; "
      + "echo end $$ >> \(scratch.runs)"
  }

  /// Runs `loadctl replay ARGUMENTS` to its exit.
  private static func replay(_ arguments: [String]) async throws -> LoadctlProcess {
    let replay = try LoadctlProcess.start(["replay"] + arguments)
    try await replay.waitForExit()
    return replay
  }

  /// Every line of the recording at `path` validates against the recording schema.
  private static func expectValid(_ path: String) async throws {
    guard SchemaValidator.isAvailable else { return }
    let lines = try Recorded.lines(path)
    #expect(try await SchemaValidator.failures(of: lines, schema: schema) == [], "\(path)")
  }

  // MARK: Replays

  /// A counter run whose `latest` policy cancels a running command replays its text output
  /// byte for byte, twice, and its events as recorded with `--json`.
  @Test func counterExecReplaysItsTextAndItsEvents() async throws {
    let scratch = try Scratch()
    let file = scratch.path("counter.jsonl")
    let run = try LoadctlProcess.start(
      [
        "counter", "--input", "-", "--policy", "latest", "--exec", Self.gated(scratch),
        "--record", file,
      ], stdin: .pipe)
    try run.write(toStdin: "d\n")
    try await run.waitForLine(containing: "effect delayed_increment#1 started")
    try run.write(toStdin: "d\n")
    try await run.waitForLine(containing: "effect delayed_increment#1 cancelled")
    try await run.waitForLine(containing: "effect delayed_increment#2 started")
    try scratch.openGate()
    run.closeStdin()
    #expect(try await run.waitForExit() == .exited(0), "\(run.transcript)")
    #expect(run.stdoutLines.last?.hasSuffix("count: 1, isLoading: false") == true)
    try await Self.expectValid(file)

    for _ in 0..<2 {
      let replay = try await Self.replay([file])
      #expect(replay.termination == run.termination, "\(file)\n\(replay.transcript)")
      #expect(replay.stdoutBytes == run.stdoutBytes, "\(file)\n\(replay.transcript)")
      #expect(replay.stderrText == "", "\(file)\n\(replay.transcript)")
    }
    let json = try await Self.replay(["--json", file])
    #expect(json.termination == .exited(0), "\(file)\n\(json.transcript)")
    let recorded = try Recorded.outLines(file)
    #expect(recorded.count >= 8, "\(file)")
    #expect(json.stdoutLines == recorded, "\(file)\n\(json.transcript)")
  }

  /// A search whose first request is cancelled by the next query, recorded with `--json`,
  /// replays the same events, and `--check` says it matches.
  @Test func searchExecWithACancelledRequestReplaysAndChecks() async throws {
    let scratch = try Scratch()
    let file = scratch.path("search.jsonl")
    let template =
      "case {query} in slow) while [ ! -e \(scratch.gate) ]; do sleep 0.01; done;; "
      + "*) printf '%s\\n' {query};; esac"
    let run = try LoadctlProcess.start(
      [
        "search", "--json", "--input", "-", "--debounce", "0", "--kill-after", "300ms",
        "--timeout", "600s", "--exec", template, "--record", file,
      ], stdin: .pipe)
    defer { try? scratch.openGate() }
    try run.write(toStdin: "slow\n")
    try await run.waitForLine(
      where: JSONEvent.matching(["event": "request_started", "query": "slow"]))
    try run.write(toStdin: "fast\n")
    try await run.waitForLine(where: JSONEvent.matching(["event": "request_cancelled"]))
    try await run.waitForLine(
      where: JSONEvent.matching(["event": "transition", "to.state": "results", "to.query": "fast"]))
    run.closeStdin()
    #expect(try await run.waitForExit() == .exited(0), "\(run.transcript)")
    try await Self.expectValid(file)

    let replay = try await Self.replay(["--json", file])
    #expect(replay.termination == .exited(0), "\(file)\n\(replay.transcript)")
    #expect(replay.stdoutBytes == run.stdoutBytes, "\(file)\n\(replay.transcript)")
    #expect(try Recorded.outLines(file) == run.stdoutLines, "\(file)")

    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")
    #expect(
      check.stdoutLines == [
        "replay matches '\(file)': \(run.stdoutLines.count) events, the run ended with status 0"
      ], "\(file)\n\(check.transcript)")
    #expect(check.stderrText == "", "\(file)\n\(check.transcript)")
  }

  /// A search over a `--corpus` file replays after the file is gone: a replay searches nothing
  /// (the recorded answers are applied), and its `start` says how many names the run read.
  @Test func aCorpusSearchReplaysWithoutItsFile() async throws {
    let scratch = try Scratch()
    let corpus = scratch.path("names.txt")
    let file = scratch.path("corpus.jsonl")
    try "alpha\nalpine\nbeta\n".write(toFile: corpus, atomically: true, encoding: .utf8)
    let run = try LoadctlProcess.start(
      [
        "search", "--json", "--clock", "virtual", "--corpus", corpus, "--record", file, "alp",
      ])
    #expect(try await run.waitForExit() == .exited(0), "\(run.transcript)")
    #expect(
      run.stdoutLines.contains { $0.contains(#""names":3"#) }, "\(file)\n\(run.transcript)")
    #expect(run.stdoutLines.contains { $0.contains(#""alpine""#) }, "\(run.transcript)")
    try FileManager.default.removeItem(atPath: corpus)

    let replay = try await Self.replay(["--json", file])
    #expect(replay.termination == .exited(0), "\(file)\n\(replay.transcript)")
    #expect(replay.stdoutBytes == run.stdoutBytes, "\(file)\n\(replay.transcript)")
    #expect(replay.stderrText == "", "\(file)\n\(replay.transcript)")
    // A real run still needs the file.
    let again = try LoadctlProcess.start(["search", "--corpus", corpus, "alp"])
    #expect(try await again.waitForExit() == .exited(65), "\(again.transcript)")
  }

  /// A ticker whose replay diverges before its feed report: the divergence (4) is the verdict,
  /// not the feed report the replay never reached (it was 65, blaming that line).
  @Test func aTickerThatDivergesBeforeItsFeedReportIsADivergence() async throws {
    let scratch = try Scratch()
    let file = scratch.path("ticker.jsonl")
    let run = try await LoadctlProcess.run([
      "ticker", "--clock", "virtual", "--count", "3", "--seed", "1", "--record", file,
    ])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    let lines = try Recorded.lines(file)
    let tick = try #require(
      lines.firstIndex { $0.hasPrefix(#"{"out":"#) && $0.contains(#""n":2,"#) }, "\(file)")
    var copy = lines
    copy[tick] = lines[tick].replacingOccurrences(of: #""n":2,"#, with: #""n":20,"#)
    let edited = scratch.path("edited.jsonl")
    try copy.map { $0 + "\n" }.joined().write(toFile: edited, atomically: true, encoding: .utf8)
    for arguments in [[edited], ["--check", edited]] {
      let replay = try await Self.replay(arguments)
      #expect(replay.termination == .exited(4), "\(edited)\n\(replay.transcript)")
      #expect(replay.stderrLines.first?.hasPrefix("replay diverged from ") == true)
      #expect(replay.stderrLines.contains("  differs:  n: 20 → 2"), "\(replay.transcript)")
    }
  }

  /// Recorded arguments that the flow refuses when it starts (an action it no longer knows) are
  /// the recording's problem: named with the recording and its line, status 65.
  @Test func recordedActionsTheFlowRefusesNameTheRecording() async throws {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    let run = try await LoadctlProcess.run(["counter", "+", "+", "--record", file])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    var lines = try Recorded.lines(file)
    lines[0] = lines[0].replacingOccurrences(
      of: #""arguments":["counter","+","+""#, with: #""arguments":["counter","+","bogus""#)
    try lines.map { $0 + "\n" }.joined().write(toFile: file, atomically: true, encoding: .utf8)
    let replay = try await Self.replay([file])
    #expect(replay.termination == .exited(65), "\(replay.transcript)")
    #expect(
      replay.stderrLines == [
        "Error: recording '\(file)' line 1: its options no longer parse: argument 2: unknown "
          + "action 'bogus' (expected +, -, d or c; or inc, dec, delayed, cancel)"
      ], "\(replay.transcript)")
  }

  /// One recorded value changed in a copy: the replay stops at that event with status 4 and
  /// names the field, recorded value first; the untouched recording still matches.
  @Test(arguments: [
    (#""exit_code":0"#, #""exit_code":9"#, "exit_code: 9 → 0"),
    (#""state":{"count":3"#, #""state":{"count":4"#, "state.count: 4 → 3"),
  ])
  func anEditedRecordingDiverges(original: String, edited: String, differs: String)
    async throws
  {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    let run = try await LoadctlProcess.run(["counter", "+", "+", "+", "--record", file])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    try await Self.expectValid(file)
    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")

    let lines = try Recorded.lines(file)
    let endIndex = try #require(
      lines.lastIndex { $0.hasPrefix(#"{"out":"#) && $0.contains(#""event":"end""#) }, "\(file)")
    #expect(lines[endIndex].contains(original), "\(file): \(lines[endIndex])")
    var copy = lines
    copy[endIndex] = lines[endIndex].replacingOccurrences(of: original, with: edited)
    let copyFile = scratch.path("edited.jsonl")
    try copy.map { $0 + "\n" }.joined().write(toFile: copyFile, atomically: true, encoding: .utf8)

    for arguments in [[copyFile], ["--check", copyFile], ["--json", copyFile]] {
      let replay = try await Self.replay(arguments)
      let message = "\(copyFile)\n\(replay.transcript)"
      #expect(replay.termination == .exited(4), "\(message)")
      let report = replay.stderrLines
      #expect(
        report.first?.hasPrefix(
          "replay diverged from '\(copyFile)' at ") == true, "\(message)")
      #expect(report.first?.contains("(recording line \(endIndex + 1))") == true, "\(message)")
      #expect(report.contains { $0.hasPrefix("  recorded: ") && $0.contains(edited) }, "\(message)")
      #expect(
        report.contains { $0.hasPrefix("  replayed: ") && $0.contains(original) }, "\(message)")
      #expect(report.contains("  differs:  \(differs)"), "\(message)")
      #expect(report.contains("  before it:"), "\(message)")
      if arguments.first == "--check" {
        #expect(replay.stdoutLines == [], "\(message)")
      }
    }
  }

  /// A run stopped by a signal dies by it, and its recording ends with that signal; the replay
  /// prints the same and exits 128 + the signal's number instead of dying. SIGQUIT ends the run
  /// at once, with no final transition and no `end`: its replay stops where the run did.
  @Test(arguments: [
    (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
  ])
  func aRunStoppedByASignalReplaysAndExitsWithItsStatus(signal: Int32, name: String)
    async throws
  {
    let scratch = try Scratch()
    let file = scratch.path("timer.jsonl")
    let run = try LoadctlProcess.start(["timer", "--interval", "50ms", "--record", file])
    try await run.waitForLine(containing: "ticks: 1 → 2")
    run.send(signal: signal)
    #expect(try await run.waitForExit() == .signaled(signal), "\(run.transcript)")
    try await Self.expectValid(file)
    let last = try #require(try Recorded.lines(file).last)
    #expect(last == #"{"end":{"signal":"\#(name)","exit":\#(128 + signal)}}"#, "\(file)")

    let replay = try await Self.replay([file])
    #expect(replay.termination == .exited(128 + signal), "\(file)\n\(replay.transcript)")
    #expect(replay.stdoutBytes == run.stdoutBytes, "\(file)\n\(replay.transcript)")
    let json = try await Self.replay(["--json", file])
    #expect(json.termination == .exited(128 + signal), "\(file)\n\(json.transcript)")
    #expect(json.stdoutLines == (try Recorded.outLines(file)), "\(file)\n\(json.transcript)")
    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")
  }

  /// A run whose reader went away (`| head -n 1`) ends by SIGPIPE; its recording says so and
  /// replays to the same events, exiting 141.
  @Test func aRunWhoseStdoutClosedReplaysAndExits141() async throws {
    let scratch = try Scratch()
    let file = scratch.path("closed.jsonl")
    let stream = "profile --json --fail offline --retries 1000000 --backoff 0 --latency 1ms"
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: [
        "-c", "\"$0\" \(stream) --record \"$1\" | head -n 1; echo \"${PIPESTATUS[0]}\" >&2",
        try BinaryLocator.locate(), file,
      ])
    #expect(outcome.stderr == "141\n", "\(file)")
    try await Self.expectValid(file)
    let last = try #require(try Recorded.lines(file).last)
    #expect(last == #"{"end":{"signal":"SIGPIPE","exit":141}}"#, "\(file)")

    let json = try await Self.replay(["--json", file])
    #expect(json.termination == .exited(141), "\(file)\n\(json.transcript)")
    #expect(json.stdoutLines == (try Recorded.outLines(file)), "\(file)\n\(json.transcript)")
    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")
  }

  /// A reader that leaves while a step prints (a fast ticker into `head -n 5`: the closed pipe is
  /// found by a flush inside the step) stops the run as any closed stdout does: 141, a recording
  /// that ends so and replays. It once crashed (the recorder's step lock taken twice), so it
  /// runs three times: the closed pipe is not always found inside a step.
  @Test func aReaderLeavingWhileAStepPrintsEndsTheRecordedRunWith141() async throws {
    let scratch = try Scratch()
    for attempt in 1...3 {
      let file = scratch.path("fast-\(attempt).jsonl")
      let outcome = try await LoadctlProcess.run(
        executable: "/bin/bash",
        arguments: [
          "-c",
          "\"$0\" ticker --interval 0 --json --record \"$1\" | head -n 5 >/dev/null; "
            + "echo \"status ${PIPESTATUS[0]}\" >&2",
          try BinaryLocator.locate(), file,
        ])
      #expect(outcome.stderr.hasSuffix("status 141\n"), "\(file)\n\(outcome.stderr)")
      #expect(!outcome.stderr.contains("Fatal error"), "\(file)\n\(outcome.stderr)")
      let last = try #require(try Recorded.lines(file).last, "\(file)")
      #expect(last == #"{"end":{"signal":"SIGPIPE","exit":141}}"#, "\(file)")
      let check = try await Self.replay(["--check", file])
      #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")
    }
  }

  /// A run killed by SIGKILL leaves whole JSON lines; the replay plays them, then refuses the
  /// recording for stopping before the run's end.
  @Test func aKilledRunsRecordingReplaysWhatItHoldsThenFails() async throws {
    let scratch = try Scratch()
    let file = scratch.path("killed.jsonl")
    let run = try LoadctlProcess.start(
      ["timer", "--json", "--interval", "20ms", "--record", file])
    try await run.waitForLine(where: JSONEvent.matching(["event": "transition", "action": "tick"]))
    // What the file holds is buffered apart from stdout: wait until it holds a happening.
    try await Polling.until("a happening in \(file)") {
      try Recorded.lines(file).contains { $0.hasPrefix(#"{"t":"#) }
    }
    run.send(signal: SIGKILL)
    #expect(try await run.waitForExit() == .signaled(SIGKILL), "\(run.transcript)")

    let lines = try Recorded.lines(file)
    for (index, line) in lines.enumerated() {
      #expect(throws: Never.self, "\(file) line \(index + 1): \(line)") {
        _ = try JSONEvent(parsing: line, lineNumber: index + 1)
      }
    }
    #expect(!lines.contains { $0.hasPrefix(#"{"end":"#) }, "\(file)")
    try await Self.expectValid(file)

    let replay = try await Self.replay(["--json", file])
    let message = "\(file)\n\(replay.transcript)"
    #expect(replay.termination == .exited(65), "\(message)")
    #expect(
      replay.stderrLines == [
        "Error: recording '\(file)' line \(lines.count): it stops before the run's end (the run "
          + "was killed, or the file was cut short); what it holds was replayed"
      ], "\(message)")
    // Nothing past what the recording holds: no final transition, no `end` made up.
    let recorded = try Recorded.outLines(file)
    #expect(replay.stdoutLines == recorded, "\(message)")
    // A moment past its last line replays all of it, and still refuses it.
    let until = try await Self.replay(["--json", "--until", "1h", file])
    #expect(until.termination == .exited(65), "\(file)\n\(until.transcript)")
    #expect(until.stdoutLines == recorded, "\(file)\n\(until.transcript)")
  }

  /// A recording whose last lines were cut off — its `end` line alone, or that and the run's
  /// `end` event — replays what it holds and ends 65 for stopping before the run's end: the
  /// events it holds past what the replay reaches (the `end`, the ticker's `producer_stopped`)
  /// are not a divergence.
  @Test(
    arguments: [
      ["counter", "--policy", "queue", "d", "+100ms d", "--delay", "300ms"],
      ["profile", "--latency", "100ms"],
      ["search", "--type", "sw"],
      ["timer", "--ticks", "2", "--interval", "100ms"],
      ["ticker", "--count", "3", "--seed", "7"],
    ], [1, 2])
  func aRecordingCutShortReplaysWhatItHoldsThenEndsWith65(run arguments: [String], cut: Int)
    async throws
  {
    let scratch = try Scratch()
    let whole = scratch.path("whole.jsonl")
    let run = try await LoadctlProcess.run(
      arguments + ["--clock", "virtual", "--json", "--record", whole])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    let lines = try Recorded.lines(whole)
    #expect(lines.last?.hasPrefix(#"{"end":"#) == true, "\(whole)")
    let file = scratch.path("cut.jsonl")
    try lines.dropLast(cut).map { $0 + "\n" }.joined()
      .write(toFile: file, atomically: true, encoding: .utf8)

    let replay = try await Self.replay(["--json", file])
    let message = "\(file)\n\(replay.transcript)"
    #expect(replay.termination == .exited(65), "\(message)")
    #expect(
      replay.stderrLines == [
        "Error: recording '\(file)' line \(lines.count - cut): it stops before the run's end "
          + "(the run was killed, or the file was cut short); what it holds was replayed"
      ], "\(message)")
    // What it holds was replayed as recorded, with no `end` made up.
    let recorded = try Recorded.outLines(file)
    #expect(replay.stdoutLines.count > 1, "\(message)")
    #expect(Array(recorded.prefix(replay.stdoutLines.count)) == replay.stdoutLines, "\(message)")
    #expect(!replay.stdoutLines.contains { $0.contains(#""event":"end""#) }, "\(message)")
  }

  /// A run whose stdout failed replays to the same status, 74, without the run's `Error:` line:
  /// the replay's own stdout is fine.
  @Test func aRunWhoseStdoutFailedReplaysTo74Quietly() async throws {
    let scratch = try Scratch()
    let file = scratch.path("full.jsonl")
    let run = try await LoadctlProcess.run(
      executable: "/bin/sh",
      arguments: [
        "-c", "\"$0\" counter + + --record \"$1\" >/dev/full", try BinaryLocator.locate(), file,
      ])
    #expect(run.termination == .exited(74), "\(run.stderr)")
    #expect(run.stderr == "Error: cannot write to stdout: No space left on device\n")
    let replay = try await Self.replay([file])
    #expect(replay.termination == .exited(74), "\(file)\n\(replay.transcript)")
    #expect(replay.stderrLines == [], "\(file)\n\(replay.transcript)")
    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(file)\n\(check.transcript)")
  }

  /// A replay whose own stdout fails, or whose reader leaves, ends as a run would (74, SIGPIPE),
  /// and blames neither the recording nor the program for what it could not print.
  @Test func aReplayWhoseStdoutFailsEndsAsARunWould() async throws {
    let scratch = try Scratch()
    let file = scratch.path("timer.jsonl")
    // Far more than a pipe holds, so the replay is still printing when `head` leaves.
    let record = try await LoadctlProcess.run(
      ["timer", "--json", "--clock", "virtual", "--ticks", "2000", "--record", file])
    #expect(record.termination == .exited(0), "\(record.stderr)")
    let full = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: ["-c", "\"$0\" replay --json \"$1\" >/dev/full", try BinaryLocator.locate(), file])
    #expect(full.termination == .exited(74), "\(file)\n\(full.stderr)")
    #expect(full.stderr == "Error: cannot write to stdout: No space left on device\n", "\(file)")
    let closed = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: [
        "-c", "\"$0\" replay --json \"$1\" | head -n 1 >/dev/null; echo \"${PIPESTATUS[0]}\" >&2",
        try BinaryLocator.locate(), file,
      ])
    #expect(closed.stderr == "141\n", "\(file)")
  }

  /// `--check`'s verdict is output too: a stdout that cannot take it ends with 74 and its
  /// `Error:` line (it ended 0, the verdict lost), and a reader that left with SIGPIPE.
  @Test func aCheckWhoseVerdictCannotBeWrittenEndsAsARunWould() async throws {
    let scratch = try Scratch()
    let file = scratch.path("counter.jsonl")
    let record = try await LoadctlProcess.run(["counter", "+", "+", "--record", file])
    #expect(record.termination == .exited(0), "\(record.stderr)")
    for until in [[], ["--until", "1ms"]] {
      let full = try await LoadctlProcess.run(
        executable: "/bin/bash",
        arguments: [
          "-c", "\"$0\" replay --check \"$@\" >/dev/full", try BinaryLocator.locate(), file,
        ] + until)
      #expect(full.termination == .exited(74), "\(file) \(until)\n\(full.stderr)")
      #expect(
        full.stderr == "Error: cannot write to stdout: No space left on device\n", "\(file)")
    }
  }

  /// A replayed timer tick may say it missed any number of deadlines: the `late` lint
  /// saturates instead of trapping (2^53 missed at `--interval 5h` overflowed a `Duration`).
  @Test func aTickThatMissedAbsurdlyManyDeadlinesReplaysWithoutTrapping() async throws {
    let scratch = try Scratch()
    let file = scratch.path("timer.jsonl")
    let record = try await LoadctlProcess.run(
      [
        "timer", "--clock", "virtual", "--json", "--record", file, "--ticks", "1", "--interval",
        "5h",
      ])
    #expect(record.termination == .exited(0), "\(record.stderr)")
    let huge = "\"missed\":9007199254740992,"
    let edited = try Recorded.lines(file).map {
      $0.replacingOccurrences(of: "\"missed\":0,", with: huge) + "\n"
    }
    #expect(edited.contains { $0.contains(huge) })
    let copy = scratch.path("edited.jsonl")
    try edited.joined().write(toFile: copy, atomically: true, encoding: .utf8)
    for check in [["--check"], ["--json"]] {
      let replay = try await Self.replay(check + [copy])
      let message = "\(copy)\n\(replay.transcript)"
      #expect([.exited(0), .exited(4)].contains(replay.termination), "\(message)")
      #expect(!replay.stderrText.contains("Fatal error"), "\(message)")
    }
  }

  // MARK: Refusals

  /// A header a replay reads (`counter +` on virtual time).
  private static let header =
    #"{"loadctl_recording":1,"loadctl_version":"0.1.0","command":"counter","#
    + #""arguments":["counter","+"],"clock":"virtual","started_at":"2026-01-01T00:00:00.000Z","#
    + #""json":false,"stdin_terminal":false,"stdout_terminal":false,"options":{}}"#

  /// A file's contents (`nil`: no file), the start of its one error line after `Error: `, and
  /// whether it is refused before anything is replayed.
  @Test(arguments: [
    (nil as String?, "cannot read recording 'PATH': No such file or directory", true),
    ("", "recording 'PATH' is empty", true),
    ("not json\n", "recording 'PATH' line 1: not JSON", true),
    ("[1]\n", "recording 'PATH' line 1: not a JSON object", true),
    (
      RecordReplayEndToEndTests.header.replacingOccurrences(
        of: #""loadctl_recording":1"#, with: #""loadctl_recording":99"#)
        + "\n",
      "recording 'PATH' line 1: recording format 99 is not one this loadctl reads", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"xyz":1}"# + "\n",
      "recording 'PATH' line 2: no 't'", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"bogus":true}"# + "\n",
      "recording 'PATH' line 2: not a happening this loadctl knows", false
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"input":{"action":"increment"}}"# + "\n"
        + #"{"t":3,"input":{"action":"increment"}}"# + "\n",
      "recording 'PATH' line 3: its time goes back (3 ns)", true
    ),
    (
      RecordReplayEndToEndTests.header.replacingOccurrences(
        of: #"["counter","+"]"#, with: #"["counter","--no-such-option"]"#) + "\n",
      "recording 'PATH' line 1: its options no longer parse", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"end":{"exit":0}}"# + "\n"
        + #"{"t":1,"closing":true}"# + "\n",
      "recording 'PATH' line 3: a line after the run's end", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":-5,"closing":true}"# + "\n",
      "recording 'PATH' line 2: 't' is negative (-5 ns)", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":1e9,"closing":true}"# + "\n",
      "recording 'PATH' line 2: 't' is 1000000000.0, not a whole number of nanoseconds", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":"5","closing":true}"# + "\n",
      "recording 'PATH' line 2: 't' must be a whole number of nanoseconds, not a string", true
    ),
    (
      String(RecordReplayEndToEndTests.header.prefix(60)),
      "recording 'PATH' line 1: the header is cut short (no newline after it)", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"end":{"signal":"SIGFOO","exit":130}}"# + "\n",
      "recording 'PATH' line 2: 'end' names signal 'SIGFOO', not one a run dies by", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"end":{"signal":"SIGINT","exit":0}}"# + "\n",
      "recording 'PATH' line 2: 'end' says SIGINT with exit 0; a death by SIGINT is 130", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"end":{"exit":256}}"# + "\n",
      "recording 'PATH' line 2: 'end' has no 'exit' status from 0 to 255", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"end":{"signal":2,"exit":130}}"# + "\n",
      "recording 'PATH' line 2: 'end' has a 'signal' that is not a name", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n"
        + #"{"t":5,"effect":1,"action":{"action":"increment"},"finished":"finished"}"# + "\n",
      "recording 'PATH' line 2: effect 1 has both an 'action' and 'finished'", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"deadline":true}"# + "\n",
      "recording 'PATH' line 2: a 'deadline' in a run that had none (no --duration)", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"t":6,"closing":true}"# + "\n",
      #"recording 'PATH' line 2: duplicate key "t""#, true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"closing":false}"# + "\n",
      "recording 'PATH' line 2: 'closing' must be true", true
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"input_finished":false}"# + "\n",
      "recording 'PATH' line 2: 'input_finished' must be true", false
    ),
    (
      RecordReplayEndToEndTests.header + "\n" + #"{"t":5,"feed":7}"# + "\n",
      "recording 'PATH' line 2: the flow's feed report is unreadable", true
    ),
  ])
  func aBadRecordingIsRefusedInOneLine(contents: String?, error: String, beforeReplay: Bool)
    async throws
  {
    let scratch = try Scratch()
    let file = scratch.path("bad.jsonl")
    if let contents { try contents.write(toFile: file, atomically: true, encoding: .utf8) }
    let expected = "Error: " + error.replacingOccurrences(of: "PATH", with: file)
    for arguments in [[file], ["--check", file], ["--json", file]] {
      let replay = try await Self.replay(arguments)
      let message = "\(file)\n\(replay.transcript)"
      #expect(replay.termination == .exited(65), "\(message)")
      #expect(replay.stderrLines.count == 1, "\(message)")
      #expect(replay.stderrLines.first?.hasPrefix(expected) == true, "\(message)")
      if beforeReplay && arguments.first != "--json" {
        #expect(replay.stdoutLines == [], "\(message)")
      }
    }
  }

  /// A replay's own `--trace` is checked as a run's, before the recording is replayed, and its
  /// problems are not blamed on the recording: naming the recording is refused (it destroyed
  /// it), `-` is a usage error, an unwritable path is 65 and a failed write 74 (it was 65
  /// "its options no longer parse", and a divergence for the failed write).
  @Test func aReplaysOwnTraceIsCheckedAsARunsIs() async throws {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    _ = try await LoadctlProcess.run(["counter", "--clock", "virtual", "+", "+", "--record", file])
    let recorded = try String(contentsOfFile: file, encoding: .utf8)
    for (trace, status, error) in [
      (
        file, 64,
        "Error: '--trace' names a file the run reads ('\(file)'); writing it would destroy it"
      ),
      ("-", 64, "Error: '--trace' needs a file path; '-' (stdout) would mix with events"),
      ("/nonexistent/x", 65, "Error: cannot write trace file '/nonexistent/x': No such file"),
      ("/dev/full", 74, "Error: cannot write trace file '/dev/full': No space left on device"),
    ] {
      let replay = try await Self.replay([file, "--trace", trace])
      #expect(replay.termination == .exited(Int32(status)), "\(trace)\n\(replay.transcript)")
      #expect(replay.stderrLines.first?.hasPrefix(error) == true, "\(trace)\n\(replay.transcript)")
      #expect(!replay.stderrLines.contains { $0.contains("diverged") }, "\(replay.transcript)")
    }
    #expect(
      try String(contentsOfFile: file, encoding: .utf8) == recorded, "the recording is intact")
  }

  /// A replay's own trace that cannot be written is said on stderr and ends 74 however the
  /// replay ends: under `--check` (whose run's stderr is discarded; it was silent) and at
  /// `--until` (it ended 0).
  @Test func aReplaysFailedTraceIsSaidWithCheckAndUntil() async throws {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    _ = try await LoadctlProcess.run(["counter", "--clock", "virtual", "+", "+", "--record", file])
    for extra in [["--check"], ["--until", "1ms"], ["--check", "--until", "1ms"]] {
      let replay = try await Self.replay([file, "--trace", "/dev/full"] + extra)
      #expect(replay.termination == .exited(74), "\(extra)\n\(replay.transcript)")
      #expect(
        replay.stderrLines
          == ["Error: cannot write trace file '/dev/full': No space left on device"],
        "\(extra)\n\(replay.transcript)")
    }
  }

  /// A recording and a trace are readable by their owner only: a new file is made 0600, and so
  /// is an old 0644 one written over (O_CREAT's mode left it 0644).
  @Test func aRecordingAndATraceAreTheOwnersOnly() async throws {
    let scratch = try Scratch()
    let (record, trace) = (scratch.path("run.jsonl"), scratch.path("run.trace"))
    for path in [record, trace] {
      try #require(FileManager.default.createFile(atPath: path, contents: Data("old".utf8)))
      chmod(path, 0o644)
    }
    let outcome = try await LoadctlProcess.run(
      ["counter", "--clock", "virtual", "+", "--record", record, "--trace", trace])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    let fresh = scratch.path("fresh.trace")
    _ = try await LoadctlProcess.run(["counter", "--clock", "virtual", "+", "--trace", fresh])
    for path in [record, trace, fresh] {
      let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(path): \(String(mode ?? 0, radix: 8))")
    }
  }

  /// A replay whose own trace fails says so also when the recording cannot be applied (the
  /// recording's 65 wins; the trace's line was lost).
  @Test func aReplaysFailedTraceIsSaidBesideABadRecording() async throws {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    _ = try await LoadctlProcess.run(["counter", "--clock", "virtual", "+", "+", "--record", file])
    let text = try String(contentsOfFile: file, encoding: .utf8)
    let edited = text.replacingOccurrences(
      of: #""input":{"action":"increment"}"#, with: #""input":{"action":"bogus"}"#)
    #expect(edited != text)
    try edited.write(toFile: file, atomically: true, encoding: .utf8)
    let replay = try await Self.replay([file, "--trace", "/dev/full"])
    #expect(replay.termination == .exited(65), "\(replay.transcript)")
    #expect(
      replay.stderrLines.contains(
        "Error: cannot write trace file '/dev/full': No space left on device"),
      "\(replay.transcript)")
    #expect(replay.stderrLines.contains { $0.contains("bogus") }, "\(replay.transcript)")
  }

  /// A replay's own `--record` is a usage error.
  @Test func replayTakesNoRecord() async throws {
    let scratch = try Scratch()
    let file = scratch.path("run.jsonl")
    _ = try await LoadctlProcess.run(["counter", "--clock", "virtual", "+", "--record", file])
    let replay = try await Self.replay([file, "--record", scratch.path("again.jsonl")])
    #expect(replay.termination == .exited(64), "\(replay.transcript)")
    #expect(replay.stderrLines.first == "Error: '--record' cannot be used with 'replay'")
    #expect(!FileManager.default.fileExists(atPath: scratch.path("again.jsonl")))
  }

  /// A recording that cannot be written ends the run with 74, and its `end` event says so (it
  /// said 0).
  @Test func aRecordingThatCannotBeWrittenEndsWith74() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "+", "+", "--json", "--record", "/dev/full"])
    #expect(outcome.termination == .exited(74), "\(outcome.stderr)")
    let errors = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
    #expect(
      errors == ["Error: cannot write recording '/dev/full': No space left on device"],
      "\(outcome.stderr)")
    let end = try #require(try JSONLines.parse(outcome.stdout).last)
    #expect(end.event == "end")
    #expect(end["exit_code"] as? Int == 74)
  }

  /// The deepest profile a run reads (63 levels, under the parser's 64) sits deeper still in a
  /// recording line; its recording replays.
  @Test func theDeepestProfileARunReadsReplays() async throws {
    let scratch = try Scratch()
    let profile = scratch.path("deep.json")
    let depth = 63
    let nested =
      String(repeating: #"{"a":"#, count: depth - 1) + "1"
      + String(repeating: "}", count: depth - 1)
    try (#"{"name":"n","x":"# + nested + "}").write(
      toFile: profile, atomically: true, encoding: .utf8)
    let file = scratch.path("deep.jsonl")
    let run = try await LoadctlProcess.run(
      ["profile", "--json", "--exec", "cat '\(profile)'", "--record", file])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    let replay = try await Self.replay(["--json", file])
    #expect(replay.termination == .exited(0), "\(file)\n\(replay.transcript)")
    #expect(replay.stdoutLines == (try Recorded.outLines(file)), "\(file)")
  }

  /// `--check` prints its verdict and nothing else: not the replayed run's rejected lines.
  @Test func checkPrintsOnlyTheVerdict() async throws {
    let scratch = try Scratch()
    let (input, file) = (scratch.path("input.txt"), scratch.path("bad.jsonl"))
    try "+\nbogus\n+\n".write(toFile: input, atomically: true, encoding: .utf8)
    let run = try await LoadctlProcess.run(["counter", "--input", input, "--record", file])
    #expect(run.termination == .exited(65), "\(run.stderr)")
    #expect(run.stderr.contains("bogus"), "\(run.stderr)")
    let check = try await Self.replay(["--check", file])
    #expect(check.termination == .exited(0), "\(check.transcript)")
    #expect(check.stderrText == "", "\(check.transcript)")
    #expect(check.stdoutLines.count == 1, "\(check.transcript)")
  }

  /// An unreadable feed report (the ticker's last line) is refused before any step is replayed,
  /// naming its own line.
  @Test func anUnreadableFeedReportIsRefusedBeforeAnythingIsReplayed() async throws {
    let scratch = try Scratch()
    let file = scratch.path("ticker.jsonl")
    let record = try await LoadctlProcess.run(
      ["ticker", "--json", "--clock", "virtual", "--count", "5", "--record", file])
    #expect(record.termination == .exited(0), "\(record.stderr)")
    var lines = try Recorded.lines(file)
    let index = try #require(lines.firstIndex { $0.contains(#""feed":{"#) })
    lines[index] = lines[index].replacing(#/"feed":\{[^}]*\}/#, with: #""feed":5"#)
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: file, atomically: true, encoding: .utf8)
    let replay = try await Self.replay(["--json", file])
    #expect(replay.termination == .exited(65), "\(replay.transcript)")
    #expect(
      replay.stderrLines == [
        "Error: recording '\(file)' line \(index + 1): the flow's feed report is unreadable"
      ], "\(replay.transcript)")
    #expect(
      !replay.stdoutLines.contains { $0.contains(#""event":"tick""#) }, "\(replay.transcript)")
  }

  /// What is not a regular file is refused before it is read: a FIFO with no writer would
  /// block the replay for ever, and `/dev/zero` would fill memory.
  @Test(arguments: ["fifo", "directory", "/dev/zero"])
  func aRecordingThatIsNotARegularFileIsRefusedAtOnce(kind: String) async throws {
    let scratch = try Scratch()
    var path = kind
    if kind == "fifo" {
      path = scratch.path("recording.fifo")
      #expect(mkfifo(path, 0o600) == 0)
    } else if kind == "directory" {
      path = scratch.directory
    }
    let outcome = try await LoadctlProcess.run(["replay", path])
    #expect(outcome.termination == .exited(65), "\(outcome.stderr)")
    let why =
      kind == "directory"
      ? "it is a directory" : "it is not a regular file (a FIFO or a device never ends)"
    #expect(outcome.stderr == "Error: cannot read recording '\(path)': \(why)\n")
    #expect(outcome.stdout == [])
  }

  @Test(arguments: [
    ("-", "Error: '--record' needs a file path; '-' (stdout) would mix with events"),
    (
      "/nonexistent-loadctl-dir/run.jsonl",
      "Error: cannot write recording '/nonexistent-loadctl-dir/run.jsonl': No such file or "
        + "directory"
    ),
  ])
  func aRecordPathThatCannotBeOpenedIsRefused(path: String, error: String) async throws {
    let outcome = try await LoadctlProcess.run(["counter", "+", "--record", path])
    #expect(outcome.termination == .exited(65), "\(outcome.stderr)")
    #expect(outcome.stdout == [], "\(outcome.stderr)")
    #expect(outcome.stderr == error + "\n")
  }

  /// `--record` and `--trace` naming one file that does not exist yet, by two spellings, are
  /// refused: both were written into it, which made it neither a trace nor a recording.
  @Test func aRecordAndATraceToBeMadeAsOneFileAreRefused() async throws {
    let scratch = try Scratch()
    let trace = scratch.path("t.json")
    let record = (trace as NSString).deletingLastPathComponent + "/./t.json"
    let outcome = try await LoadctlProcess.run(
      ["counter", "+", "--clock", "virtual", "--trace", trace, "--record", record])
    #expect(outcome.termination == .exited(64), "\(outcome.stderr)")
    #expect(outcome.stderr.hasPrefix("Error: '--record' and '--trace' name the same file"))
    #expect(!FileManager.default.fileExists(atPath: trace))
  }

  /// `--record` (or `--trace`) naming a file the run reads, stdout's file, or the other one is
  /// refused before anything is truncated: the input file keeps its lines.
  @Test(arguments: ["input", "stdout", "trace", "trace input"])
  func aWrittenFileThatWouldDestroyOrMixIsRefused(clash: String) async throws {
    let scratch = try Scratch()
    let file = scratch.path("file.txt")
    try "+\n+\n".write(toFile: file, atomically: true, encoding: .utf8)
    let quoted = "'\(file)'"
    let (command, error): (String, String) =
      switch clash {
      case "input":
        (
          "counter --input \(quoted) --record \(quoted)",
          "'--record' names a file the run reads ('\(file)'); writing it would destroy it"
        )
      case "stdout":
        (
          "counter + --record \(quoted) > \(quoted)",
          "'--record' names the same file as stdout ('\(file)'); events would mix into it"
        )
      case "trace":
        (
          "counter + --record \(quoted) --trace \(quoted)",
          "'--record' and '--trace' name the same file ('\(file)')"
        )
      default:
        (
          "counter --input \(quoted) --trace \(quoted)",
          "'--trace' names a file the run reads ('\(file)'); writing it would destroy it"
        )
      }
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: ["-c", "\"$0\" \(command); echo \"status $?\"", try BinaryLocator.locate()])
    let lines = outcome.stderr.split(separator: "\n").map(String.init)
    #expect(lines.first == "Error: " + error, "\(outcome.stderr)")
    #expect(outcome.stdout.last == "status 64", "\(outcome.stdout)")
    if clash != "stdout" {
      #expect(try String(contentsOfFile: file, encoding: .utf8) == "+\n+\n")
    }
  }

  // MARK: Secrets

  private static let hasCurl: Bool = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/curl")
    }
  }()

  /// Header values and URL passwords never reach the file, however the option is written.
  @Test(
    .enabled(if: hasCurl, "curl is not on PATH"),
    arguments: [
      ["profile", "--url", "http://127.0.0.1:9/p", "--header", "Authorization: Bearer s3cret"],
      ["profile", "--url", "http://127.0.0.1:9/p", "--header=Authorization: Bearer s3cret"],
      [
        "profile", "--url", "http://user:hunter2@127.0.0.1:9/p", "--header",
        "Authorization: Bearer s3cret",
      ],
      [
        "search", "--json", "--debounce", "0", "--url", "http://127.0.0.1:9/?q={query}",
        "--header", "X-Api-Key: s3cret", "abc",
      ],
    ])
  func secretsNeverReachTheRecording(arguments: [String]) async throws {
    let scratch = try Scratch()
    let file = scratch.path("secret.jsonl")
    let outcome = try await LoadctlProcess.run(arguments + ["--record", file])
    // Port 9 refuses at once (or a URL with a password is refused): the status is not the point.
    guard case .exited = outcome.termination else {
      Issue.record("\(outcome.termination)\n\(outcome.stderr)")
      return
    }
    guard FileManager.default.fileExists(atPath: file) else { return }
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(!text.contains("hunter2"), "\(file):\n\(text)")
    #expect(!text.contains("s3cret"), "\(file):\n\(text)")
    #expect(text.contains("<redacted>"), "\(file):\n\(text)")
    try await Self.expectValid(file)
  }
}

/// Reading a recording back as text.
private enum Recorded {
  /// The complete lines of the file (a last piece without its newline is left out).
  static func lines(_ path: String) throws -> [String] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines.removeLast()
    return lines
  }

  /// The `out` lines' events, byte for byte as `--json` printed them: a format-2 line
  /// (`{"out":{"event":…}}`, `,"elapsed_ms":…` after it when the line gives it) rebuilt as the
  /// format says, apart from the loadctl that reads it.
  static func outLines(_ path: String) throws -> [String] {
    let all = try lines(path)
    let first = try #require(all.first)
    let header = try #require(
      try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
    let command = try #require(header["command"] as? String)
    #expect(header["loadctl_recording"] as? Int == 2, "\(path)")
    var time = 0
    var events: [String] = []
    for line in all.dropFirst() {
      if line.hasPrefix(#"{"t":"#) {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        time = try #require(object?["t"] as? Int)
        continue
      }
      guard line.hasPrefix(#"{"out":{"#) else { continue }
      var body = line.dropFirst(#"{"out":{"#.count).dropLast()
      var elapsed = milliseconds(nanoseconds: time)
      let given = body.range(
        of: #"\},"elapsed_ms":(-?[0-9.eE+-]+)$"#, options: .regularExpression)
      if let given {
        elapsed = String(body[given].dropFirst(#"},"elapsed_ms":"#.count))
        body = body[..<given.lowerBound] + "}"
      }
      events.append(
        #"{"seq":\#(events.count + 1),"elapsed_ms":\#(elapsed),"command":"\#(command)",\#(body)"#)
    }
    return events
  }

  /// `elapsed_ms` for a time in nanoseconds: whole microseconds, trailing zeros dropped.
  static func milliseconds(nanoseconds: Int) -> String {
    let micros = nanoseconds / 1000
    guard micros % 1000 != 0 else { return "\(micros / 1000)" }
    var fraction = String(micros % 1000)
    fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(micros / 1000).\(fraction)"
  }
}

/// A directory of the test's own, with a `gate` file the test creates to let commands go on.
private final class Scratch: Sendable {
  let directory: String
  var runs: String { directory + "/runs" }
  var gate: String { directory + "/gate" }

  init() throws {
    directory = NSTemporaryDirectory() + "loadctl-record-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  func path(_ name: String) -> String { directory + "/" + name }

  /// Lets every gated command go on.
  func openGate() throws { try "".write(toFile: gate, atomically: true, encoding: .utf8) }
}
