import Foundation
import Testing

/// loadctl as a job of a shell with job control (`Fixtures/pty_job.py`): a run that reads keys
/// stops in the background instead of taking the terminal from the shell, and `bg` then `fg`
/// leaves the flow running.
@Suite(.processSlots) struct JobControlTests {
  struct Result: Decodable {
    let exit: Int32?
    let signal: Int32?
    let statuses: [String]
    let typeaheadLeft: Int?
    let termiosRestored: Bool
    let output: String
    let error: String?
  }

  static func runAsJob(
    _ steps: [[String]], background: Bool, typeahead: String = "", _ arguments: [String]
  ) async throws -> Result {
    let script = try TestHTTPServer.fixture().deletingLastPathComponent()
      .appendingPathComponent("pty_job.py")
    let stepsJSON = String(
      decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
    let outcome = try await LoadctlProcess.run(
      executable: SchemaValidator.python,
      arguments: [script.path, stepsJSON, background ? "bg" : "fg", typeahead, "--"]
        + [try BinaryLocator.locate()] + arguments)
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(Result.self, from: Data(outcome.stdout.joined().utf8))
  }

  /// `loadctl counter &`: it stops as a background job reading its terminal does (SIGTTIN),
  /// with the shell's type-ahead and terminal modes untouched; `fg` brings it back, reading
  /// keys. It used to switch the shell's terminal to raw mode (flushing the type-ahead), then
  /// read EIO and quit with 0.
  @Test func aKeyReadingRunStartedInTheBackgroundStopsUntilFg() async throws {
    let result = try await Self.runAsJob(
      [
        ["status", "stopped"], ["fg"], ["status", "continued"], ["wait", "keys:"], ["send", "+"],
        ["wait", "count: 0 → 1"], ["send", "q"],
      ], background: true, typeahead: "echo typed-ahead\n", ["counter", "--no-color"])
    #expect(result.error == nil, "\(result.error ?? "")\n\(result.output)")
    #expect(result.statuses.first == "stopped \(SIGTTIN)", "\(result.statuses)")
    #expect(result.typeaheadLeft == 17, "the shell's type-ahead is still there")
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
  }

  /// `loadctl counter⏎++` typed quickly: the `++` typed before raw mode began are read as keys,
  /// not discarded with the type-ahead.
  @Test func keysTypedAheadInTheForegroundAreRead() async throws {
    let result = try await Self.runAsJob(
      [["wait", "count: 1 → 2"], ["send", "q"]], background: false, typeahead: "++",
      ["counter", "--no-color"])
    #expect(result.error == nil, "\(result.error ?? "")\n\(result.output)")
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
  }

  /// Ctrl-Z, `bg`, `fg`: in the background the run stops again (it puts the terminal in raw
  /// mode, SIGTTOU), and after `fg` the timer goes on ticking until `q`. It used to read EIO
  /// when moved to the background and quit by itself.
  @Test func ctrlZThenBgThenFgGoesOn() async throws {
    let result = try await Self.runAsJob(
      [
        ["wait", "ticks: 1 → 2"], ["send", "\u{1A}"], ["status", "stopped"], ["bg"],
        ["status", "stopped"], ["fg"], ["status", "continued"], ["wait", "tick  ticks: "],
        ["wait", "tick  ticks: "], ["send", "q"],
      ], background: false, ["timer", "--interval", "50ms", "--no-color"])
    #expect(result.error == nil, "\(result.error ?? "")\n\(result.output)")
    // `bg`'s SIGCONT may be seen (`continued`) before the run stops again by SIGTTOU.
    #expect(
      result.statuses.filter { $0 != "continued" }.prefix(2) == [
        "stopped \(SIGTSTP)", "stopped \(SIGTTOU)",
      ])
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
  }
}
