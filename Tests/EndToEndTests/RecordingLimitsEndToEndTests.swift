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
}
