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

  /// `--until`: the events up to that moment, then the flow's state there, and no `end`.
  @Test func untilStopsAtThatMomentAndPrintsTheState() async throws {
    let path = Self.directory.appendingPathComponent("search-exec-race.jsonl").path
    let (events, _) = try Self.recorded("search-exec-race.jsonl")
    let replay = try await LoadctlProcess.run(["replay", "--json", "--until", "1s", path])
    #expect(replay.termination == .exited(0), "\(replay.stderr)")
    let shown = try JSONLines.parse(replay.stdout)
    let before = shown.dropLast()
    #expect(!before.isEmpty)
    #expect(Array(replay.stdout.dropLast()) == Array(events.prefix(before.count)))
    #expect(before.allSatisfy { ($0.value(at: "elapsed_ms") as? Double ?? 2000) <= 1000 })
    #expect(shown.last?.event == "state")
    #expect(shown.last?.value(at: "state.query") as? String == "swift")
    #expect(!replay.stdout.contains { $0.contains("\"event\":\"end\"") })
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

  /// A block in README or docs marked `<!-- replay: FILE -->` shows a shell session at the
  /// repository's root over the recording `Tests/Recordings/FILE`: each `$ ` line is run, in
  /// order, in one shell in a fresh directory that holds only that recording, at that path, with
  /// the built loadctl on `PATH`, and what it prints (stdout and stderr) must be the block's other
  /// lines.
  @Test(arguments: TranscriptTests.documents)
  func documentedReplaySessionsAreExact(file: String) async throws {
    let text = try String(
      contentsOf: SchemaValidator.repositoryRoot().appendingPathComponent(file), encoding: .utf8)
    for chunk in text.components(separatedBy: "<!-- replay: ").dropFirst() {
      let header = try #require(chunk.range(of: " -->"), "\(file): a replay marker without -->")
      let recording = String(chunk[..<header.lowerBound])
      try #require(!recording.contains(" "), "\(file): write <!-- replay: FILE -->")
      let rest = chunk[header.upperBound...]
      let open = try #require(rest.range(of: "```sh\n"), "\(file): no ```sh block")
      let close = try #require(rest.range(of: "\n```", range: open.upperBound..<rest.endIndex))
      let block = String(rest[open.upperBound..<close.lowerBound])
      let printed = try await Self.runSession(block, recording: recording)
      #expect(printed == block, "\(file): the replay session over \(recording)")
    }
  }

  /// Runs the `$ ` lines of `block` in one shell and returns the commands and what they printed.
  private static func runSession(_ block: String, recording: String) async throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "loadctl-replay-session-\(UUID().uuidString)")
    let recordings = directory.appendingPathComponent("Tests/Recordings")
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: Self.directory.appendingPathComponent(recording),
      to: recordings.appendingPathComponent(recording))
    let quote = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    var script = "exec 2>&1\ncd \(quote(directory.path)) || exit 99\n"
    for line in block.split(separator: "\n") where line.hasPrefix("$ ") {
      // The shown command line, then the command, with the previous command's status kept
      // for an `echo $?`.
      let command = String(line.dropFirst(2))
      script += "__status=$?; printf '%s\\n' \(quote(String(line))); (exit $__status)\n\(command)\n"
    }
    // `loadctl` on PATH is the binary under test, whatever its file is called.
    let bin = directory.appendingPathComponent(".bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: bin.appendingPathComponent("loadctl").path,
      withDestinationPath: BinaryLocator.locate())
    let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": path])
    return outcome.stdout.joined(separator: "\n")
  }
}
