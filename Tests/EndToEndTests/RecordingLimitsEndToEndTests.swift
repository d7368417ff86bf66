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
  private static func bash(_ script: String) async throws -> LoadctlProcess.Outcome {
    try await LoadctlProcess.run(
      executable: "/bin/bash", arguments: ["-c", script, try BinaryLocator.locate()])
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
}
