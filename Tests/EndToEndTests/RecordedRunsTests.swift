import Foundation
import Testing

/// The recordings of real runs under `Tests/Recordings`, replayed: each interleaving they hold
/// (commands that raced, a stale search cancelled, a feed stopped by SIGINT, a load failing
/// through its retries, the four policies over real commands, a timer driven by keys at a
/// terminal) must replay to exactly what the run printed, and end as it ended.
///
/// Each was made with `--record` from a real run (see `Tests/Recordings/README.md`); when a
/// change to a flow alters what one prints, the replay reports the first divergence.
@Suite(.processSlots) struct RecordedRunsTests {
  static let directory = SchemaValidator.repositoryRoot().appendingPathComponent(
    "Tests/Recordings")

  static let recordings = [
    "search-exec-race.jsonl", "ticker-exec-sigint.jsonl", "profile-exec-retries.jsonl",
    "counter-exec-drop.jsonl", "counter-exec-latest.jsonl", "counter-exec-queue.jsonl",
    "counter-exec-parallel.jsonl", "timer-terminal-keys.jsonl",
  ]

  /// The recorded events (`out` lines) and the recorded exit status.
  private static func recorded(_ name: String) throws -> (events: [String], exit: Int32) {
    let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    var events: [String] = []
    var exit: Int32?
    for line in text.split(separator: "\n") {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      if object["out"] != nil {
        // The recorder writes `{"out":` + the event's line + `}`.
        events.append(String(line.dropFirst(7).dropLast()))
      } else if let end = object["end"] as? [String: Any] {
        exit = (end["exit"] as? Int).map(Int32.init)
      }
    }
    return (events, try #require(exit))
  }

  @Test(arguments: recordings)
  func aRecordedRunReplaysToWhatItPrintedAndEndsAsItEnded(name: String) async throws {
    let path = Self.directory.appendingPathComponent(name).path
    let (events, exit) = try Self.recorded(name)
    let replay = try await LoadctlProcess.run(["replay", "--json", path])
    #expect(
      replay.termination == .exited(exit), "replay of \(path):\n\(replay.stderr)")
    #expect(replay.stdout == events, "replay of \(path):\n\(replay.stderr)")
  }

  @Test(arguments: recordings)
  func checkFindsEveryRecordingMatches(name: String) async throws {
    let path = Self.directory.appendingPathComponent(name).path
    let check = try await LoadctlProcess.run(["replay", "--check", path])
    #expect(check.termination == .exited(0), "replay --check \(path):\n\(check.stderr)")
    #expect(check.stdout.count == 1)
    #expect(check.stdout.first?.hasPrefix("replay matches '\(path)'") == true)
  }

  @Test func theSearchRecordingHoldsACancelledStaleRequest() throws {
    let (events, _) = try Self.recorded("search-exec-race.jsonl")
    #expect(events.contains { $0.contains("\"event\":\"request_cancelled\"") })
  }

  @Test func theProfileRecordingFailsThroughItsRetries() throws {
    let (events, exit) = try Self.recorded("profile-exec-retries.jsonl")
    #expect(exit == 1)
    #expect(events.filter { $0.contains("\"action\":\"auto_retry\"") }.count == 2)
  }
}
