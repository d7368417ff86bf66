import LoadctlCore

/// `loadctl profile`: load a profile into a `LoadState`, with retries, cancellation and input.
package enum ProfileCommand: Subcommand {
  /// `profile`'s options, each declared once: the table lists them, `options(_:_:environment:)`
  /// and ``ProfileSource`` read them.
  enum Option {
    static let latency = OptionKey.value(
      "latency", .duration, help: "Delay of the built-in demo API.", default: "1s")
    static let fail = OptionKey.value(
      "fail", .string, valueName: "MESSAGE", help: "Make the demo API fail with MESSAGE.")
    static let file = OptionKey.value(
      "file", .file, valueName: "PATH",
      help: "Load a JSON object with a string \"name\" from PATH.")
    static let exec = OptionKey.value(
      "exec", .command,
      help: "Run CMD with /bin/sh -c on each load; its stdout is the profile JSON. A non-zero "
        + "exit, a signal or output that is not a profile fails the load.")
    static let url = OptionKey.value(
      "url", .url,
      help: "Load the profile JSON from URL with curl (-q -fsSL --max-time TIMEOUT, the URL "
        + "and headers on its stdin): https, proxies and redirects (not with --header) work.")
    static let header = OptionKey.values(
      "header", .string, valueName: "'NAME: VALUE'", help: "Send this header with --url.")
    static let timeout = OptionKey.value(
      "timeout", .positiveDuration, help: "Timeout of each --exec or --url load.", default: "10s")
    static let killAfter = OptionKey.value(
      "kill-after", .duration,
      help: "When a load is cancelled, wait this long after SIGTERM before SIGKILL.",
      default: "2s")
    static let retries = OptionKey.value(
      "retries", .nonNegativeInt, help: "Retry a failed load N times.", default: "0")
    static let backoff = OptionKey.value(
      "backoff", .duration, help: "Wait before the first retry; doubles each time.",
      default: "500ms")
    static let input = OptionKey.value(
      "input", .file, help: "Read actions (load, retry, cancel, quit) from FILE, or - for stdin.")
  }

  package static let spec = CommandSpec(
    name: "profile",
    summary: "Load a profile: idle → loading → loaded | failed, with retry and cancel.",
    discussion: """
      Loads once on start, like SwiftUI's .task { await model.load() }, and ends when the state \
      settles and the input (if any) has ended. A load while loading is ignored; cancelling \
      returns to idle and is never shown as an error. Input lines: load, retry, cancel, quit, \
      each optionally prefixed with +DURATION (wait after the previous line) or @DURATION.
      """,
    options: [
      Option.latency, Option.fail, Option.file, Option.exec, Option.url, Option.header,
      Option.timeout, Option.killAfter, Option.retries, Option.backoff, Option.input,
    ] + WatchOptions.keys,
    examples: [
      "loadctl profile",
      "loadctl profile --fail 'offline' --retries 2 --backoff 200ms",
      "loadctl profile --exec 'curl -fsS https://api.example.com/me' --retries 3",
      "loadctl profile --url https://api.example.com/me --header 'Accept: application/json'",
      "loadctl profile --json | jq -r 'select(.event == \"transition\") | .to.state'",
      "printf 'load\\n+300ms cancel\\n+100ms load\\n' | loadctl profile --input -",
      "loadctl profile --file me.json --watch me.json",
    ])

  /// `profile`'s options, typed and checked once.
  package struct Options: Sendable {
    /// The demo API, `--file`, `--exec` or `--url`, with its own settings.
    let source: ProfileSource
    /// `--retries`.
    let retries: Int
    /// `--backoff`.
    let backoff: Duration
    /// `--input`.
    let input: String?
    /// `--watch`: a change reloads.
    let watch: WatchOptions?

    /// The settings the `start` event echoes.
    var startFields: [(String, JSONValue)] {
      source.options + [
        ("retries", .int(retries)), ("backoff_ms", .double(EventOutput.milliseconds(backoff))),
        ("input", input.map(JSONValue.string) ?? .null),
      ] + (watch?.startFields ?? [])
    }
  }

  package static func options(
    _ invocation: Invocation, _ run: RunOptions, environment: [String: String]
  ) throws(EarlyExit) -> Options {
    let source: ProfileSource
    do {
      source = try ProfileSource(invocation, mode: run.mode, environment: environment)
    } catch let error as UsageError {
      throw Loadctl.fail(usage: error, json: run.json)
    } catch let error as ExternalCommand.Unavailable {
      throw Loadctl.fail(unavailable: error.message, command: run.command, json: run.json)
    } catch {
      throw Loadctl.fail(badInput: "\(error)", command: run.command, json: run.json)
    }
    let watch = try WatchOptions.read(invocation, run, command: spec.name)
    if watch != nil, invocation[Option.input] != nil {
      throw Loadctl.fail(
        usage: .invalidValue(
          "give actions with '--input' or '--watch', not both", command: spec.name),
        json: run.json)
    }
    return Options(
      source: source, retries: invocation[Option.retries], backoff: invocation[Option.backoff],
      input: invocation[Option.input], watch: watch)
  }

  package static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit)
    -> ProcessEnd
  {
    let watcher: FileWatcher?
    switch options.watch?.start(for: run) {
    case .failure(let failure): return failure.end
    case .success(let started): watcher = started
    case nil: watcher = nil
    }
    let inputFD = try Loadctl.openInput(options.input, for: run)
    return try await CommandRuntime.run(run, options: options.startFields, loading: ["fetch"]) {
      context in
      let flow = ProfileFlow(
        fetch: options.source.fetcher(clock: context.clock), clock: context.clock,
        retries: options.retries, backoff: options.backoff)
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) }
      // A change under `--watch` reloads, until the run is stopped.
      var reloads: AnyInput<ProfileAction>?
      if let watcher, let watch = options.watch {
        reloads = AnyInput(
          WatchInput(
            before: nil, changes: watcher.changes, action: .load, settle: watch.settle,
            clock: context.clock))
      }
      // Keys only with `-i`: the load ends by itself, so the run does not wait for keys otherwise.
      return await FlowRunner.run(
        flow, lines: lines, actions: reloads,
        keys: context.mode.interactive ? .unlessLines : .never, context: context)
    }
  }
}

/// The profile screen as ``FlowRunner`` runs it: an initial `load`, then the input's actions or
/// keys, until everything settled.
extension ProfileFlow: RunnableFlow {
  package var initialState: ProfileState { ProfileState() }
  package var initialActions: [ProfileAction] { [.load] }
  package var cancelAction: ProfileAction? { .interrupt }

  package var keys: KeyMap<ProfileState, ProfileAction>? {
    KeyMap(legend: "keys: l load · r retry · q quit") { key in
      switch key {
      case .character("l"): .action(.load)
      case .character("r"): .action(.retry)
      case .character("q"), .escape: .quit
      default: .ignore
      }
    }
  }

  package func renderer(context: RunContext) -> StoreRenderer<ProfileState, ProfileAction> {
    let output = context.output
    return StoreRenderer(
      output: output,
      transitionText: { action, from, to in
        let arrow = "\(from.summary) → \(output.style.bold(to.summary))"
        switch action {
        case .cancel, .interrupt: return from == to ? nil : "\(arrow) (cancelled)"
        case .retry, .autoRetry: return "\(arrow) (retry)"
        case .quit: return "quit"
        default: return from == to ? nil : arrow
        }
      },
      effectText: { info, phase in
        phase == .started && info.label == "backoff" ? "waiting to retry" : nil
      },
      commandOutput: { if case .output(let output) = $0 { output } else { nil } })
  }

  package func end(
    _ outcome: FlowOutcome<Self>,
    renderer: StoreRenderer<ProfileState, ProfileAction>, output: EventOutput
  ) -> FlowEnd {
    let state = outcome.state
    var fields: [(String, JSONValue)] = [("state", state.snapshot)]
    if state.attempt > 0 { fields.append(("attempts", .int(state.attempt))) }
    if case .failed = state.load {
      return FlowEnd(status: .failed, fields: fields, summary: output.style.red(state.summary))
    }
    return FlowEnd(status: .completed, fields: fields, summary: state.summary)
  }
}

extension ProfileAction: LineParsable {}
