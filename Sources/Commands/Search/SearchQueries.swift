import LoadctlCore

/// Where `search` gets its queries: the positional argument, simulated typing, or an input file.
///
/// All three become input lines in the shared `--input` grammar, so one path (``TimedLines``,
/// waiting on the run's clock) applies them: `--type swift` is the script `@0s s`,
/// `@0.12s sw`, `@0.24s swi`, … with absolute offsets, so keystrokes never drift.
struct SearchQueries: Sendable {
  enum Source: Sendable, Equatable {
    case query(String)
    case typing(String, keystroke: Duration)
    case input(path: String)
    /// Live typing at a terminal (no query source given, stdin is a terminal).
    case keys
  }

  let source: Source

  /// The longest text `--type` types.
  static let maxTyped = 1_000

  /// Picks exactly one source from the options.
  /// - Throws: `UsageError` when none or several are given, or an option does not apply.
  init(_ invocation: Invocation, mode: RunMode) throws(UsageError) {
    typealias Option = SearchCommand.Option
    let query = invocation.positionals.first
    let typed = invocation[Option.type]
    let input = invocation[Option.input]
    let given = [
      query.map { _ in "<query>" }, typed.map { _ in "--type" }, input.map { _ in "--input" },
    ]
    .compactMap { $0 }
    // A replay of keys typed live applies the recorded keys' actions.
    if given.isEmpty, mode.readsKeys {
      source = .keys
      return
    }
    guard given.count == 1 else {
      throw UsageError.invalidValue(
        given.isEmpty
          ? "missing query (give one, or '--type TEXT', or '--input FILE')"
          : "\(given.map { "'\($0)'" }.joined(separator: " and ")) cannot be used together",
        command: "search")
    }
    if typed == nil, invocation.isGiven(Option.keystroke) {
      throw UsageError.invalidValue("'--keystroke' only applies to '--type'", command: "search")
    }
    if invocation[Option.naive], invocation.isGiven(Option.debounce) {
      throw UsageError.invalidValue(
        "'--debounce' does not apply to '--naive', which never debounces", command: "search")
    }
    if let typed {
      guard !typed.isEmpty else {
        throw UsageError.invalidValue("'--type' needs at least one character", command: "search")
      }
      // Each keystroke is a query holding everything typed so far, so the work (and the output)
      // grows with the square of the length.
      guard typed.count <= Self.maxTyped else {
        throw UsageError.invalidValue(
          "'--type' types at most \(Self.maxTyped) characters, one keystroke each (use "
            + "'--input FILE' for longer queries)", command: "search")
      }
      let keystroke = invocation[Option.keystroke]
      // The last keystroke's line is `@OFFSET …`, and an offset past `maxDuration` would be
      // rejected as a bad input line the user never wrote.
      guard keystroke * (typed.count - 1) <= maxDuration else {
        throw UsageError.invalidValue(
          "'--keystroke' times the length of '--type' must be at most 1000000000s",
          command: "search")
      }
      source = .typing(typed, keystroke: keystroke)
    } else if let input {
      source = .input(path: input)
    } else {
      source = .query(query ?? "")
    }
  }

  /// The sources' settings for the `start` event.
  var options: [(String, JSONValue)] {
    var query: JSONValue = .null
    var typed: JSONValue = .null
    var keystroke: JSONValue = .null
    var input: JSONValue = .null
    switch source {
    case .query(let text): query = .string(text)
    case .typing(let text, let interval):
      typed = .string(text)
      keystroke = .double(EventOutput.milliseconds(interval))
    case .input(let path): input = .string(path)
    case .keys: input = "keys"
    }
    return [("query", query), ("type", typed), ("keystroke_ms", keystroke), ("input", input)]
  }

  /// Opens `--input` (exits 65 with one line when it can't); `nil` for the other sources.
  func openInput(for run: RunOptions) throws(EarlyExit) -> (Int32, Bool)? {
    guard case .input(let path) = source else { return nil }
    return try Loadctl.openInput(path, for: run)
  }

  /// The lines of the argument or of the typing; empty for `--input`.
  var lines: RawLines {
    switch source {
    case .query(let text): LineSource.lines([SearchAction.line(typing: text)])
    case .typing(let text, let keystroke): LineSource.lines(Self.script(typing: text, keystroke))
    case .input, .keys: LineSource.lines([])
    }
  }

  /// One line per keystroke: each growing prefix of `text` at its absolute offset.
  static func script(typing text: String, _ keystroke: Duration) -> [String] {
    let characters = Array(text)
    return characters.indices.map { index in
      let offset = keystroke * index
      let prefix = String(characters[...index])
      return "@\(exact(offset)) \(SearchAction.line(typing: prefix))"
    }
  }

  /// A duration in seconds with every digit, which `parseDuration` reads back exactly.
  static func exact(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    guard attoseconds != 0 else { return "\(seconds)s" }
    var fraction = String(attoseconds)
    fraction = String(repeating: "0", count: 18 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(seconds).\(fraction)s"
  }
}
