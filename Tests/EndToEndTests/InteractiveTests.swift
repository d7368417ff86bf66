import Foundation
import Testing

/// loadctl at a real (pseudo-)terminal: keys in raw mode, the spinner, colour, and a terminal
/// that is always restored exactly, however the run ends.
@Suite(.processSlots) struct InteractiveTests {
  struct Result: Decodable {
    let exit: Int32?
    let signal: Int32?
    let termiosRestored: Bool
    let output: String
    let error: String?
    let termiosWhenStopped: Bool?
  }

  /// Runs `loadctl ARGUMENTS` (or `executable ARGUMENTS`) on a terminal through `pty_run.py`.
  static func runOnTerminal(
    _ steps: [[String]], _ arguments: [String], environment: [String: String] = [:],
    executable: String? = nil
  ) async throws -> Result {
    let script = try TestHTTPServer.fixture().deletingLastPathComponent()
      .appendingPathComponent("pty_run.py")
    let stepsJSON = String(
      decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
    let settings = environment.map { "\($0.key)=\($0.value)" }
    let outcome = try await LoadctlProcess.run(
      executable: SchemaValidator.python,
      arguments: [script.path, stepsJSON] + settings + [
        "--", try executable ?? BinaryLocator.locate(),
      ]
        + arguments)
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(Result.self, from: Data(outcome.stdout.joined().utf8))
  }

  static let failing = ["profile", "--fail", "offline", "--latency", "50ms"]

  /// `r` starts attempt 2, which fails as the first did; `q` then quits, and the run ends as
  /// its flow did: failed, status 1. (Waiting for "→ failed" once matched the first failure, so
  /// `q` raced attempt 2's 50 ms: cancelled, 0, when it won; failed, 1, under load.)
  @Test func retryKeyRetriesAndQQuits() async throws {
    let result = try await Self.runOnTerminal(
      [
        ["wait", "failed(offline)"], ["send", "r"], ["wait", "(retry)"],
        ["wait", "loading(attempt 2) → failed(offline)"], ["send", "q"],
      ],
      Self.failing + ["-i", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 1, "\(result.output)")
    #expect(result.termiosRestored)
    #expect(result.output.contains("keys: l load · r retry · q quit"))
    #expect(result.output.contains("failed(offline)  (failed)"), "\(result.output)")
  }

  /// Ctrl-C acts when it is read, ahead of the keys still waiting to be applied: 30,000 pasted
  /// characters, each a query the search prints whole, do not hold it back (they held it for
  /// minutes).
  @Test func ctrlCIsNotQueuedBehindPastedKeys() async throws {
    let result = try await Self.runOnTerminal(
      [
        ["wait", "type to search"], ["send", String(repeating: "a", count: 30_000)],
        ["send", "\u{03}"],
      ],
      ["search", "--log", "--no-color"])
    #expect(result.error == nil, "\(result.error ?? "")")
    #expect(result.signal == SIGINT)
    #expect(result.termiosRestored)
  }

  /// A second Ctrl-C forces the exit while the first waits for a command's teardown (the
  /// command ignores SIGTERM and `--kill-after` is ten minutes), as "Ctrl-C again to force"
  /// says; in raw mode the second key used to go unread until the teardown ended.
  @Test func aSecondCtrlCForcesTheExitAtATerminal() async throws {
    let result = try await Self.runOnTerminal(
      [
        ["wait", "keys:"], ["send", "d"], ["wait", "started"], ["send", "\u{03}"],
        ["wait", "Ctrl-C again to force"], ["send", "\u{03}"],
      ],
      ["counter", "--exec", "trap '' TERM; exec sleep 600", "--kill-after", "600s", "--no-color"])
    #expect(result.error == nil, "\(result.error ?? "")")
    #expect(result.signal == SIGINT)
    #expect(result.termiosRestored)
  }

  /// `q` while a load is in flight cancels it: the flow goes back to idle, and the run ends
  /// with 0. The load takes ten minutes, so `q` always comes first.
  @Test func quitWhileLoadingCancelsTheLoad() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "idle → loading"], ["send", "q"]],
      ["profile", "--latency", "600s", "-i", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0, "\(result.output)")
    #expect(result.termiosRestored)
    #expect(result.output.contains("loading → idle (cancelled)"), "\(result.output)")
  }

  /// How a run can end at a terminal: a key, or a signal; and how the process must end.
  struct Ending: Sendable, CustomTestStringConvertible {
    let key: String?
    let signal: String?
    let exit: Int32?
    let bySignal: Int32?
    var testDescription: String { key.map { "key \($0.debugDescription)" } ?? "SIG\(signal ?? "")" }
  }

  static let endings: [Ending] = [
    Ending(key: "q", signal: nil, exit: 0, bySignal: nil),
    Ending(key: "\u{04}", signal: nil, exit: 0, bySignal: nil),
    Ending(key: "\u{03}", signal: nil, exit: nil, bySignal: SIGINT),
    Ending(key: nil, signal: "TERM", exit: nil, bySignal: SIGTERM),
    Ending(key: nil, signal: "INT", exit: nil, bySignal: SIGINT),
  ]

  @Test(arguments: endings)
  func terminalIsRestoredHoweverTheRunEnds(ending: Ending) async throws {
    let (key, signal, exit, bySignal) = (ending.key, ending.signal, ending.exit, ending.bySignal)
    var steps: [[String]] = [["wait", "loading"]]
    if let key { steps.append(["send", key]) }
    if let signal { steps.append(["signal", signal]) }
    let result = try await Self.runOnTerminal(steps, ["profile", "-i", "--latency", "600s"])
    #expect(result.error == nil)
    #expect(result.exit == exit)
    #expect(result.signal == bySignal)
    #expect(result.termiosRestored, "stty -g differs after the run")
    #expect(result.output.contains("loading → \u{1B}[1midle\u{1B}[0m (cancelled)"))
  }

  /// At a terminal a load ends by itself, as in a pipe: keys only with `-i`.
  @Test func profileAtATerminalLoadsSettlesAndEnds() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "loaded(name: Taylor)"]], ["profile", "--latency", "50ms", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("keys:"))
  }

  /// With `-i` it takes keys, and its limit still ends it (`-i`'s help says so): a pause with
  /// space only delays the third tick.
  @Test func timerWithTicksAndInteractiveTakesKeysUntilItsLimit() async throws {
    let result = try await Self.runOnTerminal(
      [
        ["wait", "keys:"], ["wait", "ticks: 0 → 1"], ["send", " "],
        ["wait", "isTimerActive: true → false"], ["send", " "],
      ],
      ["timer", "--interval", "20ms", "--ticks", "3", "-i", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0)
    #expect(result.output.contains("3 ticks"), "\(result.output)")
  }

  /// `--no-input` never reads the terminal: a timer with nothing else to end it runs until a
  /// signal, and `q` typed meanwhile is not read. (Ticks under load may skip numbers, so the
  /// test waits for the dial's second, not for a tick count.)
  @Test func noInputNeverReadsTheTerminal() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "started"], ["send", "q"], ["wait", "00:01"], ["signal", "INT"]],
      ["timer", "--interval", "50ms", "--no-input", "--no-color"])
    #expect(result.error == nil)
    #expect(result.signal == SIGINT)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("keys:"))
  }

  /// `search --no-input` at a terminal with no query has no source of queries: the same usage
  /// error as without a terminal, not a run that reads nothing and ends idle.
  @Test func searchWithNoInputAndNoQueryIsAUsageError() async throws {
    let result = try await Self.runOnTerminal([], ["search", "--no-input", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 64)
    #expect(result.output.contains("missing query (give one, or '--type TEXT', or '--input FILE')"))
    #expect(!result.output.contains("keys:") && !result.output.contains("type to search"))
  }

  /// A timer that ends by itself (`--ticks`) reads no keys unless asked with `-i`.
  @Test func timerWithTicksEndsWithoutKeys() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "started"]], ["timer", "--interval", "20ms", "--ticks", "3", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0)
    #expect(!result.output.contains("keys:"))
  }

  /// Every key edits the box and restarts the debounce. The debounce outlasts the run: keys
  /// typed on real time can be any distance apart, and none may let a request slip in between.
  /// Each key is typed once the one before it has been applied (keys read together are one
  /// change: see the paste test).
  @Test func searchTypingEditsTheQueryLive() async throws {
    let result = try await Self.runOnTerminal(
      [
        ["wait", "type to search"], ["send", "s"], ["wait", "typed \"s\""], ["send", "w"],
        ["wait", "typed \"sw\""], ["send", "i"], ["wait", "typed \"swi\""], ["send", "\u{7F}"],
        ["wait", "debouncing \"swi\" → debouncing \"sw\""], ["send", "é"],
        ["wait", "typed \"swé\""], ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil)
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
    #expect(result.output.contains("typed \"swi\"  debouncing \"sw\" → debouncing \"swi\""))
    #expect(result.output.contains("typed \"sw\"  debouncing \"swi\" → debouncing \"sw\""))
    #expect(result.output.contains("typed \"swé\"  debouncing \"sw\" → debouncing \"swé\""))
    #expect(result.output.contains("[0 requests started, 0 cancelled]"))
  }

  /// A paste is one change of the query per read of the terminal, not one per character: each
  /// change prints the whole query, so 5,000 pasted characters printed about 25 MB.
  @Test func aPasteIntoSearchIsOneChangePerRead() async throws {
    let pasted = String(repeating: "a", count: 5_000)
    let result = try await Self.runOnTerminal(
      [
        ["wait", "type to search"], ["send", pasted], ["wait", "typed \"\(pasted)\""],
        ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil)
    #expect(result.exit == 130)
    let changes = result.output.components(separatedBy: "typed \"").count - 1
    #expect(changes >= 1 && changes <= 500, "\(changes) changes for one paste")
  }

  @Test func spinnerDrawsOnATerminalWhileLoading() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "loading…"], ["send", "q"]], ["profile", "-i", "--latency", "600s"])
    #expect(result.termiosRestored)
    #expect(result.output.contains("⠙ loading…") || result.output.contains("⠋ loading…"))
  }

  /// Ctrl-\ (an exit at once) erases the spinner's frame as every other end does: it was left on
  /// the line, and the shell's prompt landed after it.
  @Test func aForcedExitErasesTheSpinner() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "loading…"], ["send", "\u{1C}"]], ["profile", "-i", "--latency", "600s"])
    #expect(result.termiosRestored)
    let last = try #require(result.output.range(of: "loading…", options: .backwards))
    #expect(result.output[last.upperBound...].contains("\r\u{1B}[K"), "\(result.output)")
  }

  /// No colour and no other escape code, the spinner's included, with `NO_COLOR`, `TERM=dumb`
  /// or `--no-color` (`ESC[K`, the spinner clearing its line, once slipped through).
  @Test(arguments: [
    (["NO_COLOR": "1"], [String]()), (["TERM": "dumb"], []), ([:], ["--no-color"]),
  ])
  func colourIsOffWhenAsked(environment: [String: String], flags: [String]) async throws {
    // A load long enough for a spinner to draw (every 80 ms) were one allowed.
    let result = try await Self.runOnTerminal(
      [["wait", "loaded(name"], ["send", "q"]],
      ["profile", "-i", "--latency", "400ms"] + flags, environment: environment)
    #expect(result.termiosRestored)
    #expect(result.output.contains("profile  idle → loading"))
    #expect(!result.output.contains("\u{1B}["), "\(result.output.debugDescription)")
  }

  @Test func colourIsOnAtATerminal() async throws {
    let result = try await Self.runOnTerminal(
      [["wait", "loading"], ["send", "q"]], ["profile", "-i", "--latency", "600s"])
    #expect(result.output.contains("\u{1B}[36mprofile\u{1B}[0m"))
  }
}
