import Foundation
import Testing

/// `loadctl replay --until DURATION --json` over a real recording of each subcommand: the replay
/// prints the run's events up to that moment, then one `state` event in place of `end`; every
/// line is valid against the subcommand's schema, and the state is the one the run had then.
///
/// Each run is on virtual time with all its input given up front, so it ends by itself at once
/// and prints the same events every time.
@Suite(.processSlots) struct ReplayUntilSchemaTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let command: String
    /// The run's options after the subcommand; `{dir}` is the test's scratch directory.
    let arguments: [String]
    /// Written to `{dir}/input.txt` before the run, for `--input`.
    var input: String?
    /// How the recorded run ends.
    var status: Int32 = 0
    /// The `--until` moment in milliseconds: inside the run, between two of its happenings.
    let until: Int
    /// The `state` field the replay must print, as JSON: the flow's snapshot at that moment.
    let state: String

    var testDescription: String { command }
  }

  static let cases: [Case] = [
    // `+` at 0; the delayed increment started at 500 ms lands at 1.5 s.
    Case(
      command: "counter", arguments: ["--input", "{dir}/input.txt"],
      input: "+\n@500ms d\n@2s +\n", until: 1000,
      state: #"{"count":1,"is_loading":true,"in_flight":1}"#),
    // The first load fails at 100 ms; its retry waits for the backoff until 300 ms. The run
    // ends failed (1), the replay stopped early with 0.
    Case(
      command: "profile",
      arguments: [
        "--latency", "100ms", "--fail", "offline", "--retries", "1", "--backoff", "200ms",
      ],
      status: 1, until: 200,
      state: #"{"state":"failed","message":"offline","attempt":1,"retry_pending":true}"#),
    // `swi` has its results at 500 ms; `swift`, typed at 1 s, is still in its 300 ms debounce.
    Case(
      command: "search", arguments: ["--input", "{dir}/input.txt"], input: "swi\n@1s swift\n",
      until: 1100, state: #"{"state":"debouncing","query":"swift"}"#),
    // Ticks at 100 and 200 ms; the third comes at 300 ms.
    Case(
      command: "ticker", arguments: ["--seed", "7", "--count", "4", "--interval", "100ms"],
      until: 250, state: #"{"state":"ticking","ticks":2,"dropped":0}"#),
    // Started at 0, ticks at 100 and 200 ms; it stops at its fourth, at 400 ms.
    Case(
      command: "timer", arguments: ["--interval", "100ms", "--ticks", "4"], until: 250,
      state: #"{"is_timer_active":true,"ticks":2}"#),
  ]

  @Test(
    .enabled(if: SchemaValidator.isAvailable, "jsonschema is not installed"), arguments: cases)
  func aReplayStoppedEarlyEndsWithAStateEventTheSchemaAccepts(_ test: Case) async throws {
    let directory = NSTemporaryDirectory() + "loadctl-until-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    if let input = test.input {
      try input.write(toFile: directory + "/input.txt", atomically: true, encoding: .utf8)
    }
    let file = directory + "/run.jsonl"
    let arguments = test.arguments.map { $0.replacingOccurrences(of: "{dir}", with: directory) }
    let run = try await LoadctlProcess.run(
      [test.command, "--clock", "virtual", "--json", "--record", file] + arguments)
    #expect(run.termination == .exited(test.status), "\(run.stderr)")
    let ran = try JSONLines.parse(run.stdout)
    let until = Double(test.until)
    // The moment is inside the run: it goes on after it, to its `end`.
    let last = try #require(ran.last, "\(run.stderr)")
    try #require(last.event == "end", "\(run.stdout)")
    try #require((last.elapsedMilliseconds ?? 0) > until, "\(run.stdout)")

    let replay = try await LoadctlProcess.run(
      ["replay", "--until", "\(test.until)ms", "--json", file])
    let message = """
      replay --until \(test.until)ms --json \(file):
      \(replay.stdout.joined(separator: "\n"))
      \(replay.stderr)
      """
    #expect(replay.termination == .exited(0), "\(message)")
    #expect(replay.stderr == "", "\(message)")
    let schema = SchemaValidator.schema(for: test.command)
    #expect(
      try await SchemaValidator.failures(of: replay.stdout, schema: schema) == [], "\(message)")

    // The run's events up to the moment, byte for byte, then `state` at that moment, numbered
    // next, and no `end`.
    let before = ran.prefix { ($0.elapsedMilliseconds ?? .infinity) <= until }.map(\.line)
    #expect(Array(replay.stdout.dropLast()) == before, "\(message)")
    let expected =
      #"{"seq":\#(before.count + 1),"elapsed_ms":\#(test.until),"command":"\#(test.command)","#
      + #""event":"state","state":\#(test.state)}"#
    #expect(replay.stdout.last == expected, "\(message)")
    let replayed = try JSONLines.parse(replay.stdout)
    #expect(!replayed.contains { $0.event == "end" }, "\(message)")

    // And it is the state the run's own events had reached by then.
    let shown = try #require(replayed.last?.value(at: "state") as? [String: Any], "\(message)")
    let reached = Self.state(of: test.command, in: ran, at: until)
    #expect(try Self.canonical(shown) == Self.canonical(reached), "\(message)")
  }

  /// `object` as JSON with sorted keys, to compare two parsed objects.
  private static func canonical(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// The flow's state at `until` as the run's events tell it: the `to` of the last transition
  /// at or before it; for the ticker, which prints no transitions, its ticks and drops so far.
  private static func state(of command: String, in events: [JSONEvent], at until: Double)
    -> [String: Any]
  {
    let before = events.prefix { ($0.elapsedMilliseconds ?? .infinity) <= until }
    guard command == "ticker" else {
      let last = before.last { $0.event == "transition" }
      return last?.value(at: "to") as? [String: Any] ?? [:]
    }
    let dropped = before.last { $0.event == "dropped" }?.integer("total") ?? 0
    let ticks = before.filter { $0.event == "tick" }.count
    return ["state": "ticking", "ticks": ticks, "dropped": dropped]
  }
}
