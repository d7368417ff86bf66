import LoadctlCore

/// `loadctl counter`: the TCA effect example's counter with a delayed increment, driven by arguments or input.
package enum CounterCommand: Subcommand {
  /// `counter`'s options, each declared once: the table lists them, `options(_:_:environment:)`
  /// reads them.
  enum Option {
    static let delay = OptionKey.value(
      "delay", .duration,
      help: "How long a delayed increment waits (not with --exec, where the command's run "
        + "time is the delay).", default: "1s")
    static let exec = OptionKey.value(
      "exec", .command,
      help: "Run CMD with /bin/sh -c as each delayed increment's work: the count goes up when "
        + "it exits 0; a non-zero exit or a signal is reported and changes nothing. Its "
        + "stdout and stderr lines are shown as they come (see --output).")
    static let output = OptionKey.value(
      "output", .choice(ExternalCommand.OutputMode.allCases), valueName: "WHEN",
      help: "Which --exec lines are shown: show (each as it comes), failed (a command's lines "
        + "once it has failed) or hide.", default: "show")
    static let clear = OptionKey.flag(
      "clear", help: "Clear the screen before each delayed increment starts (at a terminal).")
    static let killAfter = OptionKey.value(
      "kill-after", .duration,
      help: "When a running --exec command is cancelled (latest, cancel, Ctrl-C), wait this "
        + "long after SIGTERM before SIGKILL.", default: "2s")
    static let policy = OptionKey.value(
      "policy", .choice([EffectPolicy.drop, .latest, .queue, .parallel]), valueName: "POLICY",
      help: "What a delayed increment does while another one is pending.",
      default: "drop")
    static let input = OptionKey.value(
      "input", .file, help: "Read actions from FILE (- for stdin), one per line.")
    static let onChange = OptionKey.value(
      "on-change", .string, valueName: "ACTION",
      help: "The action a --watch change applies: d (the delayed increment), +, - or c.",
      default: "d")
  }

  package static let spec = CommandSpec(
    name: "counter",
    summary: "A counter with a delayed increment: a reducer, an effect and a per-id policy.",
    discussion: """
      Applies the actions given as arguments (or read from --input) in order, and ends when they \
      are done and no delayed increment is pending; then prints the final state. Actions: \
      + (inc, increment), - (dec, decrement), d (delayed), c (cancel); each may start with \
      +DURATION (wait after the previous action) or @DURATION (from the start). A delayed \
      increment sets isLoading at once and increments after --delay; --policy says what another \
      one does meanwhile: drop (ignored, like a disabled button), latest (restart the delay), \
      queue (run after it) or parallel (run beside it). With --exec CMD, the delayed \
      increment's work is CMD (run with /bin/sh -c) instead of the --delay wait: it increments \
      when CMD exits 0, and a failure is reported (delayedIncrementFailed) without changing the \
      count; what CMD prints is shown line by line as it comes, attributed to its effect \
      (--output); the policies then apply to real commands (drop like entr, latest like watchexec's \
      restart), and cancel or Ctrl-C tears running commands down. Any failed command makes the \
      exit status 1. With --watch PATH, a change under PATH is a delayed increment (or \
      --on-change ACTION), after the actions given, until Ctrl-C. With no actions and a \
      terminal on stdin, the keys + - d c are the \
      buttons, and q quits.
      """,
    options: [
      Option.delay, Option.exec, Option.killAfter, Option.output, Option.clear, Option.policy,
      Option.input,
    ] + WatchOptions.keys + [Option.onChange],
    positionals: [
      PositionalSpec(
        name: "action", help: "+, -, d or c (also inc, dec, delayed, cancel).", isRepeating: true,
        isOptional: true,
        kind: .suggested(["+", "-", "d", "c", "increment", "decrement", "delayed", "cancel"]))
    ],
    examples: [
      "loadctl counter + + - delayed",
      "loadctl counter --delay 500ms d d '+600ms d'",
      "loadctl counter --policy parallel --json d d | jq -c '.to // empty'",
      "printf 'd\\n+300ms d\\n+2s +\\n' | loadctl counter --policy latest --input -",
      "loadctl counter --watch Sources --policy latest --exec 'swift build'",
    ])

  /// `counter`'s options, typed and checked once.
  package struct Options: Sendable {
    /// The actions given as arguments, parsed; empty when they come from `--input` or keys.
    let script: [TimedAction<CounterAction>]
    /// The same actions as written, for the `start` event.
    let actions: [String]
    /// `--input`.
    let input: String?
    /// `--delay`, or `--exec` with `--kill-after`.
    let work: CounterWork
    /// `--policy`.
    let policy: EffectPolicy
    /// `--watch` and its settings, and the action a change applies (`--on-change`).
    let watch: WatchOptions?
    let onChange: CounterAction
    /// `--clear`, if given: whether it clears (at a terminal, without `--json`).
    let clear: Bool?
    var clears: Bool { clear ?? false }

    /// The settings the `start` event echoes.
    var startFields: [(String, JSONValue)] {
      work.options + [("policy", .string(policy.rawValue))]
        + (clear.map { [("clear", .bool($0))] } ?? []) + [
          ("actions", .array(actions.map(JSONValue.string))),
          ("input", input.map(JSONValue.string) ?? .null),
        ] + (watch.map { $0.startFields + [("on_change", .string(onChange.name))] } ?? [])
    }
  }

  package static func options(
    _ invocation: Invocation, _ run: RunOptions, environment: [String: String]
  ) throws(EarlyExit) -> Options {
    let actions = invocation.positionals
    let input = invocation[Option.input]
    if input != nil, !actions.isEmpty {
      throw Loadctl.fail(
        usage: .invalidValue(
          "give actions as arguments or with '--input', not both", command: spec.name),
        json: run.json)
    }
    // Parsed once, before anything runs, so a typo never runs half a script; an argument is
    // part of the command line, so a bad one is a usage error.
    let script: [TimedAction<CounterAction>]
    do throws(InputError) {
      script = try TimedAction.parse(actions, as: CounterAction.parse)
    } catch {
      throw Loadctl.fail(
        usage: .invalidValue("argument \(error.line): \(error.message)", command: spec.name),
        json: run.json)
    }
    let work: CounterWork
    let onChange: CounterAction
    let watch = try WatchOptions.read(invocation, run, command: spec.name)
    do throws(UsageError) {
      work = try CounterWork(invocation, mode: run.mode)
      onChange = try watchAction(invocation, watching: watch != nil, input: input != nil)
    } catch {
      throw Loadctl.fail(usage: error, json: run.json)
    }
    return Options(
      script: script, actions: actions, input: input, work: work,
      policy: invocation[Option.policy], watch: watch, onChange: onChange,
      clear: invocation[Option.clear] ? run.mode.terminals.stdout && !run.json : nil)
  }

  /// `--on-change`, checked: only with `--watch`, which reads no `--input`.
  private static func watchAction(_ invocation: Invocation, watching: Bool, input: Bool)
    throws(UsageError) -> CounterAction
  {
    guard watching else {
      if invocation.isGiven(Option.onChange) {
        throw .invalidValue("'--on-change' only applies to '--watch'", command: spec.name)
      }
      return .delayedIncrement
    }
    if input {
      throw .invalidValue(
        "give actions with '--input' or '--watch', not both (actions given as arguments run "
          + "first)", command: spec.name)
    }
    switch CounterAction.parse(invocation[Option.onChange]) {
    case .success(let action): return action
    case .failure(let problem):
      throw .invalidValue("invalid '--on-change': \(problem.message)", command: spec.name)
    }
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
    return try await CommandRuntime.run(
      run, options: options.startFields, loading: [CounterFlow.effectName]
    ) { context in
      var flow = CounterFlow(
        policy: options.policy, workLabel: options.work.label,
        work: options.work.operation(clock: context.clock))
      flow.clears = options.clears
      let lines = inputFD.map { context.lines(fd: $0.0, closeWhenDone: $0.1) }
      // Actions given as arguments take the place of input lines and keys.
      let script = options.actions.isEmpty ? nil : options.script
      var actions = script.map { AnyInput(TimedActions($0, clock: context.lineClock)) }
      if let watcher, let watch = options.watch {
        actions = AnyInput(
          WatchInput(
            before: actions, changes: watcher.changes, action: options.onChange,
            settle: watch.settle, clock: context.clock))
      }
      return await FlowRunner.run(
        flow, lines: lines, actions: actions, keys: .unlessLines, context: context)
    }
  }

  /// Text like TCA's `_printChanges` (the action, then the fields that changed; a failure adds
  /// its message), the delayed increment's effect with its work: `started (1s)`, and each line
  /// its command printed as an `output` event of the effect (see ``CounterRenderer``).
  package static func renderer(for flow: CounterFlow, output: EventOutput) -> CounterRenderer {
    CounterRenderer(
      base: storeRenderer(for: flow, output: output), output: output, clears: flow.clears)
  }

  private static func storeRenderer(
    for flow: CounterFlow, output: EventOutput
  ) -> StoreRenderer<CounterState, CounterAction> {
    let style = output.style
    return StoreRenderer<CounterState, CounterAction>(
      output: output,
      transitionText: { action, from, to in
        let text = "\(style.bold(action.summary))  \(style.changes(to.changes(since: from)))"
        guard case .delayedIncrementFailed(let message) = action else { return text }
        return "\(text) — \(style.red(message.escapingControlCharacters))"
      },
      effectText: { info, phase in
        let label = "effect \(info.label)#\(info.serial)"
        switch phase {
        case .started: return "\(label) started (\(flow.workLabel))"
        case .finished: return nil
        case .dropped, .queued:
          return "\(label) \(phase.rawValue) (\(info.policy?.rawValue ?? "") policy)"
        case .cancelled, .failed: return "\(label) \(phase.rawValue)"
        }
      },
      commandOutput: { if case .output(let output) = $0 { output } else { nil } })
  }
}

/// The counter as ``FlowRunner`` runs it: its actions from the arguments, input lines or keys,
/// until it is done and nothing is pending; `failed` (exit status 1) with `failed_increments`
/// when any delayed increment's work failed.
extension CounterFlow: RunnableFlow {
  package var initialState: CounterState { CounterState() }
  package var cancelAction: CounterAction? { .interrupt }

  package var keys: KeyMap<CounterState, CounterAction>? {
    let legend = "keys: + increment · - decrement · d delayed increment · c cancel · q quit"
    return KeyMap(legend: legend) { key in
      switch key {
      case .character("+"), .character("="): .action(.increment)
      case .character("-"): .action(.decrement)
      case .character("d"): .action(.delayedIncrement)
      case .character("c"): .action(.cancel)
      case .character("q"), .escape: .quit
      default: .ignore
      }
    }
  }

  package func renderer(context: RunContext) -> CounterRenderer {
    CounterCommand.renderer(for: self, output: context.output)
  }

  /// Failed delayed increments.
  package var initialTally: Int { 0 }

  package func count(_ event: StoreEvent<CounterState, CounterAction>, into failures: inout Int) {
    if case .transition(.delayedIncrementFailed, _, _, _) = event { failures += 1 }
  }

  package func end(
    _ outcome: FlowOutcome<Self>,
    renderer: CounterRenderer, output: EventOutput
  ) -> FlowEnd {
    let state = outcome.state
    guard outcome.tally > 0 else {
      return FlowEnd(
        status: .completed, fields: [("state", state.snapshot)], summary: state.summary)
    }
    return FlowEnd(
      status: .failed,
      fields: [("failed_increments", .int(outcome.tally)), ("state", state.snapshot)],
      summary: output.style.red(state.summary))
  }
}

extension CounterAction: LineParsable {}

/// The counter's events as ``StoreRenderer`` prints them (a command's lines as `output` events
/// of the effect that ran it); with `--clear` the screen is cleared as each delayed increment
/// starts.
package struct CounterRenderer: FlowRendering {
  let base: StoreRenderer<CounterState, CounterAction>
  let output: EventOutput
  let clears: Bool

  package func render(_ event: StoreEvent<CounterState, CounterAction>) {
    switch event {
    case .effectStarted where clears:
      // Home, clear the screen and its scrollback, as `clear` does.
      output.writeControl("\u{1B}[H\u{1B}[2J\u{1B}[3J")
      base.render(event)
    default:
      base.render(event)
    }
  }
}
