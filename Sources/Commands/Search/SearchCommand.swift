import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `loadctl search`: debounced, latest-wins search over typed queries, and the race without it.
package enum SearchCommand: Subcommand {
  /// `search`'s options, each declared once: the table lists them, `options(_:_:environment:)`,
  /// ``SearchQueries`` and ``SearchSource`` read them.
  enum Option {
    static let type = OptionKey.value(
      "type", .string, valueName: "TEXT",
      help: "Type TEXT one keystroke at a time (at most 1,000 characters).")
    static let keystroke = OptionKey.value(
      "keystroke", .duration, help: "Time between keystrokes of --type.", default: "120ms")
    static let input = OptionKey.value(
      "input", .file, help: "Read the search box's text from FILE, a line per change.")
    static let debounce = OptionKey.value(
      "debounce", .duration, help: "Pause after the last change before a request.",
      default: "300ms")
    static let naive = OptionKey.flag(
      "naive", help: "No debounce, no cancellation: every response is applied.")
    static let limit = OptionKey.value(
      "limit", .positiveInt, help: "Show at most N results.", default: "10")
    static let corpus = OptionKey.value(
      "corpus", .file, help: "Search the lines of FILE instead of the built-in names.")
    static let exec = OptionKey.value(
      "exec", .command, valueName: "TEMPLATE",
      help: "Run TEMPLATE with /bin/sh -c per request, the query in $LOADCTL_QUERY and each "
        + "{query} (outside quotes) standing for \"$LOADCTL_QUERY\"; each "
        + "stdout line is a result. A non-zero exit or a signal fails it.")
    static let url = OptionKey.value(
      "url", .url, valueName: "TEMPLATE",
      help: "GET TEMPLATE with curl, {query} percent-encoded; expects a JSON array of strings.")
    static let header = OptionKey.values(
      "header", .string, valueName: "'NAME: VALUE'", help: "Send this header with --url.")
    static let timeout = OptionKey.value(
      "timeout", .positiveDuration, help: "Timeout of each --exec or --url request.",
      default: "10s")
    static let killAfter = OptionKey.value(
      "kill-after", .duration,
      help: "When a request is cancelled, wait this long after SIGTERM before SIGKILL.",
      default: "2s")
    static let latency = OptionKey.value(
      "latency", .duration, help: "Simulated delay of each request (0 with --exec or --url).",
      default: "200ms")
    static let jitter = OptionKey.value(
      "jitter", .duration, help: "Random extra delay per request, up to DURATION.")
    static let seed = OptionKey.value(
      "seed", .nonNegativeInt, help: "Seed of the jitter, to reproduce a run.")
  }

  package static let spec = CommandSpec(
    name: "search",
    summary: "Search as you type: debounce, latest wins, never a stale result (--naive: the race).",
    discussion: """
      Like SwiftUI's .task(id: query) with a debounce: each new query cancels the pending \
      debounce and any request still in flight, so a response for an older query is never \
      shown; an empty query clears the results at once. Queries come from the argument, from \
      --type (one growing prefix per keystroke) or from --input (each line is the whole search \
      box, optionally after +DURATION or @DURATION; "" is an empty box). --naive starts a \
      request per change and applies every response, marking those that overwrite a newer \
      query's results as STALE. --exec runs a command per request (each stdout line is a \
      result) and --url fetches with curl; a request cancelled by a newer query tears its \
      process group down.
      """,
    options: [
      Option.type, Option.keystroke, Option.input, Option.debounce, Option.naive, Option.limit,
      Option.corpus, Option.exec, Option.url, Option.header, Option.timeout, Option.killAfter,
      Option.latency, Option.jitter, Option.seed,
    ],
    positionals: [
      PositionalSpec(name: "query", help: "Search for this one query.", isOptional: true)
    ],
    examples: [
      "loadctl search task",
      "loadctl search --type 'withTaskGroup' --keystroke 80ms",
      "loadctl search --naive --type 'navigation' --jitter 400ms --seed 7",
      "printf 'sw\\n+400ms swift\\n+100ms \"\"\\n' | loadctl search --input -",
      "loadctl search --exec 'grep -ril -- {query} docs'",
      "loadctl search --url 'http://localhost:8080/search?q={query}' --type swift",
      "loadctl search --json task | jq -r 'select(.event == \"end\") | .state.items[]'",
    ])

  /// `search`'s options, typed and checked once.
  package struct Options: Sendable {
    /// The query, `--type`, `--input` or live keys.
    let queries: SearchQueries
    /// Where results come from, and the simulated delay.
    let source: SearchSource
    /// `--naive`: no debounce, no cancellation, every response shown.
    let naive: Bool
    /// `--debounce`; zero with `--naive`.
    let debounce: Duration

    /// The settings the `start` event echoes.
    var startFields: [(String, JSONValue)] {
      [
        ("mode", naive ? "naive" : "latest"),
        ("debounce_ms", naive ? .null : .double(EventOutput.milliseconds(debounce))),
      ] + source.options + queries.options
    }
  }

  package static func options(
    _ invocation: Invocation, _ run: RunOptions, environment: [String: String]
  ) throws(EarlyExit) -> Options {
    let source: SearchSource
    let queries: SearchQueries
    do {
      queries = try SearchQueries(invocation, mode: run.mode)
      source = try SearchSource(invocation, mode: run.mode, environment: environment)
    } catch let error as UsageError {
      throw Loadctl.fail(usage: error, json: run.json)
    } catch let error as ExternalCommand.Unavailable {
      throw Loadctl.fail(unavailable: error.message, command: run.command, json: run.json)
    } catch {
      throw Loadctl.fail(badInput: "\(error)", command: run.command, json: run.json)
    }
    let naive = invocation[Option.naive]
    return Options(
      queries: queries, source: source, naive: naive,
      debounce: naive ? .zero : invocation[Option.debounce])
  }

  package static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit)
    -> ProcessEnd
  {
    let queries = options.queries
    let inputFD = try queries.openInput(for: run)
    return try await CommandRuntime.run(
      run, options: options.startFields, loading: [SearchFlow.requestName]
    ) { context in
      let flow = SearchFlow(
        fetch: options.source.fetcher(clock: context.clock), clock: context.clock,
        debounce: options.debounce, naive: options.naive)
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) } ?? queries.lines
      // Typed live when the queries come from the keys; the lines if the terminal cannot.
      return await FlowRunner.run(
        flow, lines: lines, keys: queries.source == .keys ? .first : .never, context: context)
    }
  }

  /// The `end` event's fields and the last line people read.
  static func end(_ state: SearchState, _ counts: SearchCounts, style: Style) -> FlowEnd {
    let fields: [(String, JSONValue)] = [
      ("state", state.snapshot), ("query", .string(state.query)), ("requests", counts.requests),
      ("stale_responses", .int(counts.stale)),
    ]
    var tally = "\(counts.started) request\(counts.started == 1 ? "" : "s") started"
    tally += ", \(counts.cancelled) cancelled"
    if counts.stale > 0 { tally += ", \(counts.stale) stale" }
    var summary = state.summaryWithItems
    if state.stale {
      summary = "\(style.red("STALE")) \(summary) while the box says \(quoted(state.query))"
    }
    if case .failed = state.phase {
      return FlowEnd(status: .failed, fields: fields, summary: "\(style.red(summary))  [\(tally)]")
    }
    return FlowEnd(status: .completed, fields: fields, summary: "\(summary)  [\(tally)]")
  }
}

/// The search box as ``FlowRunner`` runs it: queries from input lines or typed live, until the
/// last query settled and the input ended.
extension SearchFlow: RunnableFlow {
  package var initialState: SearchState { SearchState() }
  package var cancelAction: SearchAction? { .interrupt }

  /// The box typed live: each key edits the state's query and goes through the same debounce.
  /// Backspace deletes a character (a whole one: `é` and `한` are one key), Enter keeps the line,
  /// Esc — or `q` typed alone while the box is empty — quits. Keys read together (a paste) are
  /// one change of the query, to all they typed; a `q` among them is typed. The box holds at most
  /// ``maxBoxBytes``: a key that would go past it is ignored.
  package var keys: KeyMap<SearchState, SearchAction>? {
    KeyMap(
      legend: "type to search · backspace deletes · Esc (or q on an empty box) quits",
      coalescing: true
    ) { key, state, alone in
      switch key {
      case .escape: return .quit
      case .character("q") where state.query.isEmpty && alone: return .quit
      case .character(let character) where state.query.utf8.count < Self.maxBoxBytes:
        return .action(.queryChanged(state.query + String(character)))
      case .backspace where !state.query.isEmpty:
        return .action(.queryChanged(String(state.query.dropLast())))
      default: return .ignore
      }
    }
  }

  /// The most UTF-8 bytes the box holds, as much as an input line may (64 KiB). Each key of a
  /// paste makes the query anew, so a paste of n bytes costs n² without a bound (a 1 MiB paste,
  /// about a minute); at this bound, under half a second.
  package static let maxBoxBytes = 65_536

  package func renderer(context: RunContext) -> SearchRenderer {
    SearchRenderer(output: context.output, elapsed: context.elapsed)
  }

  package func end(
    _ outcome: FlowOutcome<Self>, renderer: SearchRenderer, output: EventOutput
  ) -> FlowEnd {
    SearchCommand.end(outcome.state, renderer.counts, style: output.style)
  }
}

extension SearchRenderer: FlowRendering {}

extension SearchAction: LineParsable {}
