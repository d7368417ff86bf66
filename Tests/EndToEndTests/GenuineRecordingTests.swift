import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Every genuine recording replays: runs made the ways a person makes them (at a terminal, cut
/// short, read by `head`) are recorded, then replayed with `--check`, which must say 0.
@Suite(.processSlots) struct GenuineRecordingTests {
  /// `loadctl replay --check PATH` to its exit.
  private static func check(_ path: String) async throws -> LoadctlProcess {
    let replay = try LoadctlProcess.start(["replay", "--check", path])
    try await replay.waitForExit()
    return replay
  }

  /// `replay --check PATH` says the replay matches, with status 0.
  private static func expectMatches(
    _ path: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let replay = try await check(path)
    #expect(
      replay.termination == .exited(0), "\(replay.stderrText)", sourceLocation: sourceLocation)
    #expect(
      replay.stdoutText.hasPrefix("replay matches "), "\(replay.stdoutText)",
      sourceLocation: sourceLocation)
  }

  /// `search` typed at a terminal, no query given: its options are read as at the terminal
  /// (keys), not refused as "missing query".
  @Test func aSearchTypedAtATerminalReplays() async throws {
    let recording = try TemporaryFile("")
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", #""event":"start""#], ["send", "ab"], ["wait", #""action":"response""#],
        ["send", "\u{03}"],
      ],
      ["search", "--json", "--record", recording.path])
    #expect(result.error == nil, "\(result.output)")
    #expect(result.signal == SIGINT || result.exit == 130, "\(result.output)")
    try await Self.expectMatches(recording.path)
  }

  /// `timer --paused` at a terminal, started by a key: not refused as needing `--input`.
  @Test func aPausedTimerStartedAtATerminalReplays() async throws {
    let recording = try TemporaryFile("")
    let result = try await InteractiveTests.runOnTerminal(
      [["wait", #""event":"start""#], ["send", "s"], ["wait", #""ticks":2"#], ["send", "q"]],
      ["timer", "--paused", "--interval", "50ms", "--json", "--record", recording.path])
    #expect(result.error == nil, "\(result.output)")
    try await Self.expectMatches(recording.path)
  }

  /// A header whose `clock` is neither clock is a corrupt recording (65), not a divergence.
  @Test func aBogusClockIsACorruptRecording() async throws {
    let good = try TemporaryFile("")
    let run = try await LoadctlProcess.run(
      ["counter", "+", "--clock", "virtual", "--record", good.path])
    #expect(run.termination == .exited(0))
    let text = try String(contentsOfFile: good.path, encoding: .utf8)
    let bogus = try TemporaryFile(
      text.replacingOccurrences(of: #""clock":"virtual""#, with: #""clock":"bogus""#))
    let replay = try await Self.check(bogus.path)
    #expect(replay.termination == .exited(65), "\(replay.stderrText)")
    #expect(replay.stderrText.contains("line 1"), "\(replay.stderrText)")
    #expect(replay.stderrText.contains(#"'clock' must be "continuous" or "virtual""#))
  }

  /// `loadctl replay r.jsonl >> r.jsonl` is refused before anything is read or written (64),
  /// as a run refuses `--record` naming its stdout; the recording is left as it was.
  @Test func aReplayIntoItsOwnRecordingIsAUsageError() async throws {
    let recording = try TemporaryFile("")
    let run = try await LoadctlProcess.run(
      ["counter", "+", "--clock", "virtual", "--record", recording.path])
    #expect(run.termination == .exited(0))
    let before = try String(contentsOfFile: recording.path, encoding: .utf8)
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh",
      arguments: [
        "-c", #"exec "$0" replay "$1" >> "$1""#, try BinaryLocator.locate(), recording.path,
      ])
    #expect(outcome.termination == .exited(64), "\(outcome.stderr)")
    #expect(
      outcome.stderr.hasPrefix(
        "Error: the recording '\(recording.path)' is also the replay's stdout"))
    #expect(try String(contentsOfFile: recording.path, encoding: .utf8) == before)
  }

  /// A second signal forces the exit while a command ignores SIGTERM: the recording still
  /// ends (`at_once`), and its replay matches and exits as the run did.
  @Test(arguments: [SIGINT, SIGTERM])
  func aForcedExitReplays(signal: Int32) async throws {
    let recording = try TemporaryFile("")
    let run = try LoadctlProcess.start([
      "counter", "--exec", "trap '' TERM; echo ready; sleep 100", "--kill-after", "600s", "d",
      "--record", recording.path, "--json",
    ])
    try await run.waitForLine(containing: #""event":"effect_started""#)
    run.send(signal: signal)
    try await run.waitForLine(containing: #""action":"interrupt""#)
    run.send(signal: signal)
    #expect(try await run.waitForExit() == .signaled(signal))
    let text = try String(contentsOfFile: recording.path, encoding: .utf8)
    #expect(text.hasSuffix(#","at_once":true}}"# + "\n"), "\(text)")
    let check = try await Self.check(recording.path)
    #expect(check.termination == .exited(0), "\(check.stderrText)")
    let replay = try LoadctlProcess.start(["replay", recording.path])
    #expect(try await replay.waitForExit() == .exited(128 + signal), "\(replay.stderrText)")
  }

  /// A recording cut by `kill -9` replays up to a moment `--until` names before the cut: the
  /// state there and status 0, as `--until` promises, not 65 for the cut it never reached.
  @Test func untilBeforeTheCutOfAKilledRunEndsZero() async throws {
    let recording = try TemporaryFile("")
    let run = try LoadctlProcess.start([
      "timer", "--interval", "100ms", "--no-input", "--json", "--record", recording.path,
    ])
    try await run.waitForLine(where: LintEndToEndTests.tick(atLeast: 5))
    run.send(signal: SIGKILL)
    #expect(try await run.waitForExit() == .signaled(SIGKILL))
    let replay = try LoadctlProcess.start(["replay", "--json", "--until", "200ms", recording.path])
    #expect(try await replay.waitForExit() == .exited(0), "\(replay.stderrText)")
    #expect(replay.stdoutLines.last?.contains(#""event":"state""#) == true)
    let check = try LoadctlProcess.start(["replay", "--check", "--until", "200ms", recording.path])
    #expect(try await check.waitForExit() == .exited(0), "\(check.stderrText)")
    #expect(check.stdoutText.hasPrefix("replay matches "), "\(check.stdoutText)")
  }

  /// A reader that leaves once it has read what it wanted (`| head -n 1`), at any moment
  /// before or after the run's end: the recording replays and `--check` says 0. Each run is one
  /// draw of that race; a reader leaving after `end` was recorded as a shutdown, half the time.
  @Test func aRunReadByHeadReplays() async throws {
    for _ in 0..<6 {
      let recording = try TemporaryFile("")
      let pipeline = try await LoadctlProcess.run(
        executable: "/bin/sh",
        arguments: [
          "-c", #""$0" counter + + + + + --record "$1" | head -n 1 >/dev/null"#,
          try BinaryLocator.locate(), recording.path,
        ])
      #expect(pipeline.termination == .exited(0))
      let check = try await Self.check(recording.path)
      #expect(
        check.termination == .exited(0),
        "\(check.stderrText)\n\((try? String(contentsOfFile: recording.path, encoding: .utf8)) ?? "")"
      )
    }
  }

  /// A timer suspended by Ctrl-Z and continued: the run raises no `late` for the tick that
  /// waited, and neither does its replay, which reads the suspension from the recording.
  @Test func aTimerSuspendedAndContinuedReplays() async throws {
    let recording = try TemporaryFile("")
    let process = try LoadctlProcess.start(
      ["timer", "--interval", "100ms", "--no-input", "--json", "--record", recording.path])
    try await process.waitForLine(where: LintEndToEndTests.tick(atLeast: 1))
    // Past the threshold (200 ms).
    try await process.stop(by: SIGTSTP, forAtLeast: .milliseconds(500))
    let before =
      try JSONLines.parse(process.stdoutLines).compactMap { $0.value(at: "to.ticks") as? Int }
      .max() ?? 1
    process.send(signal: SIGCONT)
    try await process.waitForLine(where: LintEndToEndTests.tick(atLeast: before + 3))
    process.send(signal: SIGINT)
    #expect(try await process.waitForExit() == .signaled(SIGINT))
    #expect(!process.stdoutLines.contains { $0.contains(#""event":"warning""#) })
    let text = try String(contentsOfFile: recording.path, encoding: .utf8)
    #expect(text.contains(#""suspended":true"#), "\(text)")
    let check = try await Self.check(recording.path)
    #expect(check.termination == .exited(0), "\(check.stderrText)")
  }

  /// An effect line for a serial that never started is a corrupt recording (65, naming the
  /// line), not a divergence (4).
  @Test func anEffectThatNeverStartedIsACorruptRecording() async throws {
    let recorded = SchemaValidator.repositoryRoot()
      .appendingPathComponent("Tests/Recordings/counter-exec-latest.jsonl")
    let text = try String(contentsOf: recorded, encoding: .utf8)
    #expect(text.contains(#""effect":3,"action""#))
    let bogus = try TemporaryFile(
      text.replacingOccurrences(of: #""effect":3,"action""#, with: #""effect":9,"action""#))
    let replay = try await Self.check(bogus.path)
    #expect(replay.termination == .exited(65), "\(replay.stderrText)")
    #expect(replay.stderrText.contains("effect 9 sends or ends, but never started"))
  }
}
