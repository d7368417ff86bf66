import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What recording and replaying cost, and where they stop: the descriptors a replay needs, the
/// longest line a recording holds, and a recording into a FIFO that no one reads yet.
@Suite(.processSlots) struct RecordingLimitsEndToEndTests {
  /// A scratch directory, removed by the caller.
  private static func scratch() throws -> String { try ChildProcesses.scratch() }

  /// Runs `script` in bash with the built loadctl as `$0`.
  private static func bash(_ script: String, _ arguments: String...) async throws
    -> LoadctlProcess.Outcome
  {
    try await LoadctlProcess.run(
      executable: "/bin/bash", arguments: ["-c", script, try BinaryLocator.locate()] + arguments)
  }

  // MARK: Descriptors

  /// A replay runs no command: it starts with fewer descriptors than a run needs (it was
  /// refused, 71, below the run's 16), and a run is still refused at that limit.
  @Test func aReplayNeedsFewerDescriptorsThanARun() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/run.jsonl"
    let recorded = try await LoadctlProcess.run(
      ["counter", "+", "+", "--clock", "virtual", "--record", file])
    #expect(recorded.termination == .exited(0), "\(recorded.stderr)")

    for arguments in ["", "--check", "--json --trace '\(directory)/t.json'"] {
      let replay = try await Self.bash(
        #"ulimit -n 12; exec "$0" replay "# + arguments + " '\(file)'")
      #expect(replay.termination == .exited(0), "\(arguments): \(replay.stderr)")
      #expect(replay.stderr == "", "\(arguments)")
      #expect(!replay.stdout.isEmpty, "\(arguments)")
    }
    let run = try await Self.bash(#"ulimit -n 12; exec "$0" counter + --clock virtual"#)
    #expect(run.termination == .exited(71), "\(run.stderr)")
    #expect(run.stderr.hasPrefix("Error: too few file descriptors: loadctl needs 16"))
    let starved = try await Self.bash(#"ulimit -n 6; exec "$0" replay "# + "'\(file)'")
    #expect(starved.termination == .exited(71), "\(starved.stderr)")
    #expect(starved.stderr.hasPrefix("Error: too few file descriptors: loadctl needs 8"))
  }

  // MARK: A FIFO

  /// `--record FIFO` with no reader yet says, in one line, that the run waits for one (it waited
  /// without a word), and the run starts and ends when a reader comes; the reader gets the whole
  /// recording. A FIFO that has its reader already is written without a word.
  @Test func aRecordingIntoAFIFOSaysItWaitsForAReader() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let fifo = directory + "/run.fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let loadctl = try LoadctlProcess.start(
      ["counter", "+", "+", "--clock", "virtual", "--record", fifo])
    let notice = "waiting for a reader of recording FIFO '\(fifo)' before the run starts"
    #expect(try await loadctl.waitForStderr(containing: "waiting for a reader") == notice)
    #expect(loadctl.stdoutLines == [], "the run waits before it starts")
    let reader = try LoadctlProcess.start(executable: "/bin/cat", arguments: [fifo])
    #expect(try await loadctl.waitForExit() == .exited(0), "\(loadctl.transcript)")
    #expect(try await reader.waitForExit() == .exited(0))
    #expect(loadctl.stderrText == notice + "\n")
    #expect(loadctl.stdoutLines.last?.hasSuffix("count: 2, isLoading: false") == true)
    #expect(reader.stdoutLines.first?.hasPrefix(#"{"loadctl_recording":"#) == true)
    #expect(reader.stdoutLines.last == #"{"end":{"exit":0}}"#, "\(reader.transcript)")

    // A reader already there (the test's own, which holds the FIFO open): no word, no wait; the
    // short recording fits in the FIFO's buffer until the run has ended.
    let held = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    #expect(held >= 0)
    defer { close(held) }
    let heldRun = try await LoadctlProcess.run([
      "counter", "+", "--clock", "virtual", "--record", fifo,
    ])
    #expect(heldRun.termination == .exited(0), "\(heldRun.stderr)")
    #expect(heldRun.stderr == "")
    var bytes = [UInt8](repeating: 0, count: 1 << 16)
    let count = bytes.withUnsafeMutableBytes { read(held, $0.baseAddress, $0.count) }
    let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    #expect(text.hasSuffix(#"{"end":{"exit":0}}"# + "\n"), "\(text)")
  }

  /// A signal ends the wait for a FIFO's reader, as it ends a run.
  @Test func aSignalEndsTheWaitForARecordingFIFOsReader() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let fifo = directory + "/run.fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let loadctl = try LoadctlProcess.start(["counter", "+", "--record", fifo])
    try await loadctl.waitForStderr(containing: "waiting for a reader")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
  }

  // MARK: Long lines

  /// Records `counter + +` and rewrites line `line` of it with `edit`.
  private static func recording(
    in directory: String, editing line: Int, _ edit: (String) -> String
  ) async throws -> String {
    let file = directory + "/run.jsonl"
    let run = try await LoadctlProcess.run(
      ["counter", "+", "+", "--clock", "virtual", "--record", file])
    #expect(run.termination == .exited(0), "\(run.stderr)")
    var lines = try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")
    lines[line - 1] = edit(lines[line - 1])
    try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  /// A recording line longer than the limit (an event's or a header's field of absurd size) is
  /// a corrupt recording: one line, 65, before anything is replayed. (An `out` line was
  /// compared and printed twice in a divergence report; a header field was taken.)
  @Test(arguments: [(1, #""started_at":""#), (4, #"{"out":{"#)])
  func aLineLongerThanTheLimitIsRefusedInOneLine(line: Int, at anchor: String) async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let long = String(repeating: "A", count: 17 << 20)
    let file = try await Self.recording(in: directory, editing: line) {
      $0.replacingOccurrences(
        of: anchor,
        with: anchor + (line == 1 ? long : #""x":"\#(long)","#))
    }
    let expected =
      "Error: recording '\(file)' line \(line): longer than 16 MiB: not a line loadctl wrote\n"
    for arguments in [[file], ["--check", file], ["--json", file]] {
      let replay = try await LoadctlProcess.run(["replay"] + arguments)
      #expect(replay.termination == .exited(65), "\(arguments)")
      #expect(replay.stderr == expected, "\(replay.stderr.prefix(400))")
      if arguments.first == "--json" {
        #expect(replay.stdout.count == 1 && replay.stdout[0].contains(#""event":"error""#))
      } else {
        #expect(replay.stdout == [], "\(arguments)")
      }
    }
  }

  /// A divergence over a long value (under the limit) quotes it shortened, saying how much was
  /// left out: the report stays short (it held the value twice).
  @Test func aDivergenceOverALongValueIsReportedShort() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let long = String(repeating: "A", count: 1 << 20)
    let file = try await Self.recording(in: directory, editing: 4) {
      $0.replacingOccurrences(of: #"{"out":{"#, with: #"{"out":{"x":"\#(long)","#)
    }
    let replay = try await LoadctlProcess.run(["replay", file])
    #expect(replay.termination == .exited(4), "\(replay.stderr.prefix(400))")
    #expect(replay.stderr.utf8.count < 8000, "\(replay.stderr.prefix(400))")
    let lines = replay.stderr.split(separator: "\n")
    #expect(lines.first?.hasPrefix("replay diverged from '\(file)'") == true)
    #expect(lines.count(where: { $0.contains(" more bytes)") }) == 2, "\(replay.stderr)")
  }

  /// A bad recording's `Error:` line quotes a long value shortened (it quoted it whole).
  @Test func aBadRecordingsErrorLineQuotesALongValueShortened() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let name = String(repeating: "A", count: 100_000)
    let file = try await Self.recording(in: directory, editing: 3) { _ in
      #"{"t":0,"input":{"action":"\#(name)"}}"#
    }
    let replay = try await LoadctlProcess.run(["replay", file])
    #expect(replay.termination == .exited(65))
    #expect(replay.stderr.hasPrefix("Error: recording '\(file)' line 3: "), "\(replay.stderr)")
    #expect(replay.stderr.utf8.count < 1200, "\(replay.stderr.prefix(1200))")
    #expect(replay.stderr.hasSuffix(" more bytes)\n"), "\(replay.stderr.prefix(1200))")
  }

  /// A run whose recording would hold a line longer than the limit (a command's output whose
  /// control characters are escaped six-fold) stops the recording before it and ends with 74;
  /// the recording replays up to there, then says it stops short (the run wrote a line no
  /// replay could read).
  @Test func aRunStopsItsRecordingBeforeALineTooLong() async throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/run.jsonl"
    let command = directory + "/controls.sh"
    try "head -c 3000000 /dev/zero | tr '\\0' '\\1'\n".write(
      toFile: command, atomically: true, encoding: .utf8)
    let run = try await Self.bash(
      #"printf 'x\n' | "$0" search --input - --limit 1 --exec "sh '$1' {query}" --record "$2""#
        + " > /dev/null",
      command, file)
    #expect(run.termination == .exited(74), "\(run.stderr)")
    let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
    #expect(errors.count == 1, "\(run.stderr)")
    #expect(
      errors.first?.hasPrefix("Error: cannot write recording '\(file)': line ") == true,
      "\(run.stderr)")
    #expect(
      errors.first?.hasSuffix(
        " would be longer than 16 MiB, more than a replay reads; the recording stops before it")
        == true, "\(run.stderr)")
    let replay = try await LoadctlProcess.run(["replay", file])
    #expect(replay.termination == .exited(65), "\(replay.stderr)")
    #expect(replay.stderr.contains("it stops before the run's end"), "\(replay.stderr)")
  }
}
