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
      "limit", .positiveInt,
      help: "Keep at most N results (a picker at a terminal keeps up to 100,000 unless given).",
      default: "10")
    static let corpus = OptionKey.value(
      "corpus", .file, help: "Search the lines of FILE instead of the built-in names.")
    static let exec = OptionKey.value(
      "exec", .command, valueName: "TEMPLATE",
      help: "Run TEMPLATE with /bin/sh -c per request, the query in $LOADCTL_QUERY and each "
        + "{query} (outside quotes) standing for \"$LOADCTL_QUERY\"; each "
        + "stdout line is a result. Exit status 1 with nothing printed is no results (grep, rg); "
        + "another non-zero exit or a signal fails it.")
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
    static let multi = OptionKey.flag(
      "multi", help: "At a terminal: Tab marks rows, Shift-Tab unmarks, Enter prints the marked.")
    static let printQuery = OptionKey.flag(
      "print-query", help: "At a terminal: print the query on stdout before the pick.")
    static let log = OptionKey.flag(
      "log", help: "At a terminal: print every transition as a log instead of the picker.")
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

      At a terminal with no query, search is a picker drawn on /dev/tty (stdout may be a pipe, \
      as in "$(loadctl search --exec …)"): the query, the flow's state, the results and a \
      legend. Every printable key is text. Left/Right, Ctrl-B/F, Home/End, Ctrl-A/E, Alt-B/F \
      move the cursor; Backspace, Delete, Ctrl-U (to the start), Ctrl-W (a word), Ctrl-K (to \
      the end) delete; Up/Down, Ctrl-P/N, PgUp/PgDn move the selection; with --multi, Tab marks \
      and Shift-Tab unmarks. Enter prints the selected row (or the marked ones) on stdout and \
      exits 0 (1 when there was nothing to pick); Esc, Ctrl-G, Ctrl-C (and Ctrl-D on an empty \
      box) exit 130 and print nothing. --log prints the transitions instead, as without a \
      terminal; with --json the events go to stdout and the pick is a `pick` event.
      """,
    options: [
      Option.type, Option.keystroke, Option.input, Option.debounce, Option.naive, Option.limit,
      Option.corpus, Option.exec, Option.url, Option.header, Option.timeout, Option.killAfter,
      Option.latency, Option.jitter, Option.seed, Option.multi, Option.printQuery, Option.log,
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
      "vim \"$(loadctl search --exec 'grep -rl -- {query} .')\"",
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
    /// `--multi`, `--print-query`, `--log`.
    let multi: Bool
    let printQuery: Bool
    let log: Bool
    /// `TERM=dumb`: a terminal that cannot place the cursor, which gets the log.
    let dumbTerminal: Bool

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
      source = try SearchSource(
        invocation, mode: run.mode, environment: environment, picking: queries.source == .keys)
    } catch let error as UsageError {
      throw Loadctl.fail(usage: error, json: run.json)
    } catch let error as ExternalCommand.Unavailable {
      throw Loadctl.fail(unavailable: error.message, command: run.command, json: run.json)
    } catch {
      throw Loadctl.fail(badInput: "\(error)", command: run.command, json: run.json)
    }
    let naive = invocation[Option.naive]
    if queries.source != .keys,
      let option = [Option.multi, Option.printQuery, Option.log].first(where: invocation.isGiven)
    {
      throw Loadctl.fail(
        usage: UsageError.invalidValue(
          "'\(option.spec.longForm)' only applies to keys typed at a terminal (no query, "
            + "'--type' or '--input')", command: "search"), json: run.json)
    }
    return Options(
      queries: queries, source: source, naive: naive,
      debounce: naive ? .zero : invocation[Option.debounce], multi: invocation[Option.multi],
      printQuery: invocation[Option.printQuery], log: invocation[Option.log],
      dumbTerminal: environment["TERM"] == "dumb")
  }

  package static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit)
    -> ProcessEnd
  {
    let queries = options.queries
    let inputFD = try queries.openInput(for: run)
    // The view is on the terminal unless the log is asked for, or JSON goes to the terminal; a
    // replay shows what the recorded run showed, without drawing it.
    var keysPicker: SearchPicker?
    var startFields = options.startFields
    if queries.source == .keys {
      let drawn =
        !options.log && !options.dumbTerminal && !(run.json && run.mode.terminals.stdout)
      let screen = drawn && !run.mode.isReplay ? TerminalScreen.open() : nil
      let view =
        run.mode.isReplay ? run.mode.recordedOptions?["view"] == "picker" : screen != nil
      keysPicker = SearchPicker(
        screen: screen, view: view, style: Style(enabled: run.escapesAllowed),
        multi: options.multi, printQuery: options.printQuery)
      startFields.append(("view", view ? "picker" : "log"))
    }
    let picker = keysPicker
    let end = try await CommandRuntime.run(
      run, options: startFields, loading: picker?.view == true ? [] : [SearchFlow.requestName]
    ) { context in
      var flow = SearchFlow(
        fetch: options.source.fetcher(clock: context.clock), clock: context.clock,
        debounce: options.debounce, naive: options.naive)
      flow.picker = picker
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) } ?? queries.lines
      guard let picker, let screen = picker.screen else {
        // Typed live when the queries come from the keys; the lines if the terminal cannot.
        return await FlowRunner.run(
          flow, lines: lines, keys: queries.source == .keys ? .first : .never, context: context)
      }
      context.terminal.show(screen)
      return await withTaskGroup(of: FlowEnd?.self) { group in
        group.addTask {
          await picker.run(clock: ContinuousClock())
          return nil
        }
        let end = await FlowRunner.run(flow, lines: lines, keys: .first, context: context)
        picker.finish()
        group.cancelAll()
        return end
      }
    }
    // The pick, as fzf prints it: the rows, raw, a line each, after the view is gone.
    if !run.json, !run.discardsOutput, case .exit = end, let printed = picker?.printed {
      Loadctl.printOut(printed)
    }
    return end
  }

  /// The exit status of a picker left without a pick (Esc), as a shell shows Ctrl-C's.
  static let dismissedStatus: Int32 = 130

  /// The `end` event's fields and the last line people read; a picker's pick is a `pick` event
  /// before it, and its end status.
  static func end(
    _ state: SearchState, _ counts: SearchCounts, picker: SearchPicker?, output: EventOutput
  ) -> FlowEnd {
    picker?.ended(state)
    var end = Self.end(state, counts, style: output.style)
    if picker?.view == true { end.summary = nil }
    switch state.ending {
    case .picked(let rows)?:
      output.emit(
        "pick", [("query", .string(state.query)), ("items", .array(rows.map(JSONValue.string)))],
        kind: .result, text: nil)
      // Nothing to pick ends 1, as fzf's no match does.
      end.status = rows.isEmpty ? .failed : .completed
    case .dismissed?:
      end.status = .completed
      end.exitStatus = SearchCommand.dismissedStatus
    case nil:
      break
    }
    return end
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

  /// The box typed live, as readline and fzf take keys: every printable key (`q` too) is text;
  /// Left, Right, Home, End, Ctrl-A/E/B/F and Alt-B/F move the cursor; Backspace, Delete,
  /// Ctrl-U, Ctrl-W and Ctrl-K delete; Up, Down, Ctrl-P/N, Page Up and Down move the selection;
  /// with `--multi` Tab marks and Shift-Tab unmarks a row; Enter picks; Esc, Ctrl-G (and Ctrl-D
  /// in an empty box) leave without a pick. Each edit goes through the same debounce. Keys read
  /// together (a paste) are one change of the query, to all they typed. The box holds at most
  /// ``maxBoxBytes``: a key that would go past it is ignored.
  package var keys: KeyMap<SearchState, SearchAction>? {
    let legend =
      picker?.view == true
      ? "" : "type to search · Enter picks · Esc leaves · ←→ ^U ^W ^K edit · ↑↓ move"
    let picker = self.picker
    let multi = picker?.multi ?? false
    return KeyMap(legend: legend, coalescing: true) { key, state in
      let box = state.box
      func edit(_ edited: SearchBox) -> KeyResult<SearchAction> {
        edited == box ? .ignore : .action(.edited(edited))
      }
      func move(_ rows: Int) -> KeyResult<SearchAction> {
        state.hits.isEmpty ? .ignore : .step(.moved(by: rows))
      }
      switch key {
      case .character(let character):
        guard state.query.utf8.count < Self.maxBoxBytes else { return .ignore }
        return edit(box.inserting(String(character)))
      case .backspace: return edit(box.deletingBackward())
      case .delete: return edit(box.deletingForward())
      case .endOfInput:
        // An empty box leaves; else Delete, and at the end nothing (ignored, Ctrl-D would end
        // the keys).
        guard !state.query.isEmpty else { return .last(.dismissed) }
        return .action(.edited(box.deletingForward()))
      case .control("u"): return edit(box.deletingToStart())
      case .control("w"): return edit(box.deletingWordBefore())
      case .control("k"): return edit(box.deletingToEnd())
      case .left, .control("b"): return edit(box.moving(by: -1))
      case .right, .control("f"): return edit(box.moving(by: 1))
      case .home, .control("a"): return edit(box.atStart)
      case .end, .control("e"): return edit(box.atEnd)
      case .alt("b"): return edit(box.wordBackward())
      case .alt("f"): return edit(box.wordForward())
      case .up, .control("p"): return move(-1)
      case .down, .control("n"): return move(1)
      case .pageUp: return move(-(picker?.pageRows ?? 10))
      case .pageDown: return move(picker?.pageRows ?? 10)
      case .tab where multi: return state.hits.isEmpty ? .ignore : .step(.marked(true))
      case .backTab where multi: return state.hits.isEmpty ? .ignore : .step(.marked(false))
      case .enter: return .last(.picked)
      case .escape, .control("g"): return .last(.dismissed)
      default: return .ignore
      }
    }
  }

  /// The most UTF-8 bytes the box holds, as much as an input line may (64 KiB). Each key of a
  /// paste makes the query anew, so a paste of n bytes costs n² without a bound (a 1 MiB paste,
  /// about a minute); at this bound, under half a second.
  package static let maxBoxBytes = 65_536

  package func renderer(context: RunContext) -> SearchRenderer {
    SearchRenderer(output: context.output, elapsed: context.elapsed, picker: picker)
  }

  package func end(
    _ outcome: FlowOutcome<Self>, renderer: SearchRenderer, output: EventOutput
  ) -> FlowEnd {
    SearchCommand.end(outcome.state, renderer.counts, picker: picker, output: output)
  }
}

extension SearchRenderer: FlowRendering {}

extension SearchAction: LineParsable {}
