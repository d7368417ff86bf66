import LoadctlCore

/// A flow as the runner sees it: its state and reducer, the actions it starts with, how input
/// lines and keys become actions, how its events print, and how its run ends.
///
/// A feature folder implements it with what is its own; ``FlowRunner`` runs any of them, so input
/// lines, keys, signals (as the run's cancellation) and effect results enter a flow in one place,
/// and its events leave it in one place.
package protocol RunnableFlow: Sendable {
  associatedtype State: ReportableState
  associatedtype Action: RecordableAction
  /// What the flow counts from its events as they happen, for its `end` (the timer's ticks).
  associatedtype Tally: Sendable = Void
  /// What prints the flow's events.
  associatedtype Renderer: FlowRendering<State, Action> = StoreRenderer<State, Action>
  /// What the flow's own feed reported once its producer stopped (the ticker's prices).
  associatedtype FeedReport: Sendable = Void

  /// The store's state before the first action.
  var initialState: State { get }
  /// The store's reducer.
  func reduce(_ state: inout State, _ action: Action) -> Effect<Action>
  /// Actions applied before any input (`profile` loads on start).
  var initialActions: [Action] { get }
  /// Applied when the run is cancelled (Ctrl-C, SIGTERM, a closed stdout, a deadline), for the
  /// final transition; its effects are not run.
  var cancelAction: Action? { get }
  /// The action an input line asks for, or why the line is rejected.
  func action(line: String) -> Result<Action, LineProblem>
  /// The legend shown at a terminal and what each key does, when the flow reads keys.
  var keys: KeyMap<State, Action>? { get }
  /// How the flow's events print.
  func renderer(context: RunContext) -> Renderer
  /// Ends the run early when this much time has passed on the run's clock (`timer --duration`).
  var deadline: Duration? { get }
  /// Runs `body`, the store's run, with input the flow makes itself instead of lines and keys
  /// (the ticker's price feed), whose producer runs beside it and is stopped once it returns.
  /// - Returns: What `body` returned, and what the feed reported once its producer had stopped.
  func withFeed<Result: Sendable>(
    context: RunContext, _ body: (AnyInput<Action>?) async -> Result
  ) async -> (Result, FeedReport)

  /// The feed's report as a recording holds it (the ticker's); `nil` when there is none.
  func recorded(feed: FeedReport) -> JSONValue?
  /// Reads what ``recorded(feed:)`` wrote; `nil` when `value` is not such a report.
  func feed(recorded value: JSONValue?) -> FeedReport?

  /// The tally before the first event.
  var initialTally: Tally { get }
  /// Counts one event into `tally`.
  func count(_ event: StoreEvent<State, Action>, into tally: inout Tally)
  /// The flow's own lint that `event` raises, if any (the timer's `late`, the ticker's
  /// `dropped`); the policy lints are the runner's.
  func lint(_ event: StoreEvent<State, Action>) -> LintWarning?
  /// How the run ends, from the store's last state and reason, the tally, and whether the
  /// deadline ended it; `renderer` is the one that printed the run.
  func end(_ outcome: FlowOutcome<Self>, renderer: Renderer, output: EventOutput) -> FlowEnd
}

/// Prints a flow's store events as they happen (``StoreRenderer``, or a flow's own).
package protocol FlowRendering<State, Action>: Sendable {
  associatedtype State: Sendable
  associatedtype Action: Sendable
  func render(_ event: StoreEvent<State, Action>)
}

extension StoreRenderer: FlowRendering {}

/// When a run reads keys at a terminal.
package enum KeyUse: Sendable {
  /// Never.
  case never
  /// When there are no input lines.
  case unlessLines
  /// Keys first; the lines only if the terminal cannot give keys.
  case first
}

/// What a key press does in a flow, given the flow's state.
package struct KeyMap<State: Sendable, Action: Sendable>: Sendable {
  /// The one line shown when the terminal starts reading keys.
  package let legend: String
  /// Whether the keys read together (a paste, keys held down) are one change: only the read's
  /// last action reaches the flow, and each key of the read is mapped against the state as the
  /// read's earlier actions leave it (a draft the flow's reducer applies them to, whose effects
  /// are dropped). For a map whose every action holds the whole of what was typed (a search
  /// box), so that a paste is one change, not one per character.
  package let coalescing: Bool
  /// The action for a key, given the flow's state as the store left it after applying every
  /// earlier key's action (coalescing, the read's draft of it), and whether the key was read
  /// alone (typed, not part of a paste or of keys held down).
  private let mapKey: @Sendable (_ key: Key, _ state: State, _ alone: Bool) -> KeyResult<Action>

  package init(
    legend: String, coalescing: Bool = false,
    map: @escaping @Sendable (_ key: Key, _ state: State, _ alone: Bool) -> KeyResult<Action>
  ) {
    self.legend = legend
    self.coalescing = coalescing
    self.mapKey = map
  }

  /// A map whose keys mean the same whether read alone or with others.
  package init(
    legend: String, coalescing: Bool = false,
    map: @escaping @Sendable (Key, State) -> KeyResult<Action>
  ) {
    self.init(legend: legend, coalescing: coalescing) { key, state, _ in map(key, state) }
  }

  /// A map whose keys mean the same whatever the state.
  package init(legend: String, map: @escaping @Sendable (Key) -> KeyResult<Action>) {
    self.init(legend: legend) { key, _ in map(key) }
  }

  /// The action for `key` given `state`; `alone` when it is the only key of its read.
  package func map(_ key: Key, _ state: State, alone: Bool = true) -> KeyResult<Action> {
    mapKey(key, state, alone)
  }
}

/// How a run of a ``RunnableFlow`` went, for its ``RunnableFlow/end(_:renderer:output:)``.
package struct FlowOutcome<Flow: RunnableFlow>: Sendable {
  /// The store's last state.
  package let state: Flow.State
  /// Why the store stopped: `cancelled` also when the deadline ended it.
  package let reason: StoreStopReason
  package let tally: Flow.Tally
  /// What the flow's own feed reported (see ``RunnableFlow/withFeed(context:_:)``).
  package let feed: Flow.FeedReport
  /// Whether the flow's ``RunnableFlow/deadline`` ended the run.
  package let deadlineReached: Bool
}

extension RunnableFlow {
  package var initialActions: [Action] { [] }
  package var cancelAction: Action? { nil }
  package var keys: KeyMap<State, Action>? { nil }
  package var deadline: Duration? { nil }
  package func lint(_ event: StoreEvent<State, Action>) -> LintWarning? { nil }
}

/// An action that an input line names: `parse` turns the line's text into the action or a
/// message, and nothing more.
package protocol LineParsable {
  static func parse(_ line: String) -> Result<Self, LineProblem>
}

extension RunnableFlow where Action: LineParsable {
  package func action(line: String) -> Result<Action, LineProblem> {
    Action.parse(line)
  }
}

extension RunnableFlow where FeedReport == Void {
  package func recorded(feed: Void) -> JSONValue? { nil }
  /// A flow without a feed reads no report: a recording that holds one is not of this flow.
  package func feed(recorded value: JSONValue?) -> Void? { value == nil ? () : nil }

  package func withFeed<Result: Sendable>(
    context: RunContext, _ body: (AnyInput<Action>?) async -> Result
  ) async -> (Result, Void) {
    (await body(nil), ())
  }
}

extension RunnableFlow where Tally == Void {
  package var initialTally: Void { () }
  package func count(_ event: StoreEvent<State, Action>, into tally: inout Void) {}
}

/// Runs any ``RunnableFlow``: the one place where a flow's input is assembled and its store run.
package enum FlowRunner {
  /// Runs `flow` to its end. Actions come from its initial actions, then its own feed (see
  /// ``RunnableFlow/withFeed(context:_:)``), else `lines` (each rejected line reported) or keys
  /// at a terminal, as `keys` says, when the flow has a key map.
  ///
  /// - Parameter actions: Actions already parsed (the counter's arguments, with their times);
  ///   they take the place of `lines` and keys.
  package static func run<Flow: RunnableFlow>(
    _ flow: Flow, lines: RawLines?, actions: AnyInput<Flow.Action>? = nil, keys: KeyUse,
    context: RunContext
  ) async -> FlowEnd {
    let renderer = flow.renderer(context: context)
    if let replay = context.replay {
      return await Self.replay(flow, replay, renderer: renderer, context: context)
    }
    let ((result, tally, deadlineReached), feed) = await flow.withFeed(context: context) {
      feed in
      var input = feed ?? actions
      var reported: Locked<Flow.State>?
      if input == nil {
        (input, reported) = Self.input(flow, lines: lines, keys: keys, context: context)
      }
      return await Self.runStore(
        flow, input: input, reported: reported, renderer: renderer, context: context)
    }
    if let recorder = context.recorder, let report = flow.recorded(feed: feed) {
      recorder.feed(report)
    }
    let outcome = FlowOutcome<Flow>(
      state: result?.state ?? flow.initialState, reason: result?.reason ?? .cancelled,
      tally: tally, feed: feed, deadlineReached: deadlineReached)
    // Recorded, what the end prints carries the time of the last happening, as in its replay.
    return RecordedTime.withValue(context.recorder?.lastTime) {
      flow.end(outcome, renderer: renderer, output: context.output)
    }
  }

  /// Runs the flow's store over `input` beside its deadline, if it has one; each state the
  /// store reports is put in `reported`, for the keys that read it.
  /// - Returns: The store's result (`nil` if it never returned one), the tally, and whether the
  ///   deadline ended the run.
  private static func runStore<Flow: RunnableFlow>(
    _ flow: Flow, input: AnyInput<Flow.Action>?, reported: Locked<Flow.State>?,
    renderer: Flow.Renderer, context: RunContext
  ) async -> (StoreResult<Flow.State>?, Flow.Tally, Bool) {
    let store = Store(initialState: flow.initialState, reducer: flow.reduce)
    let inputs = AnyInput(flow.initialActions, then: input)
    typealias Child = RunChild<Flow.State, Flow.Tally>
    return await withTaskGroup(of: Child.self) { group in
      group.addTask {
        var observer = FlowObserver(
          flow: flow, renderer: renderer, context: context, reported: reported)
        let result: StoreResult<Flow.State>
        if let recorder = context.recorder {
          result = await context.run(
            store, inputs: inputs, onCancel: flow.cancelAction,
            journal: RecordingJournal<Flow.Action>(recorder: recorder)
          ) { observer.observe($0) }
        } else {
          result = await context.run(store, inputs: inputs, onCancel: flow.cancelAction) {
            observer.observe($0)
          }
        }
        return .store(result, observer.tally)
      }
      if let deadline = flow.deadline {
        group.addTask { [clock = context.clock] in
          do {
            try await clock.sleep(for: deadline)
            context.recorder?.deadline()
            return .deadline
          } catch {
            return .cancelled
          }
        }
      }
      // The first child to return ends the other: a deadline cancels the store, which applies
      // the flow's cancel action as Ctrl-C would.
      var stored: (StoreResult<Flow.State>, Flow.Tally)?
      var deadlineReached = false
      for await child in group {
        switch child {
        case .store(let result, let tally): stored = (result, tally)
        case .deadline: deadlineReached = true
        case .cancelled: break
        }
        group.cancelAll()
      }
      return (stored?.0, stored?.1 ?? flow.initialTally, deadlineReached)
    }
  }

  /// Runs `flow` again from its recording (`loadctl replay`): each recorded happening is applied
  /// at its time on the replay's virtual clock, and what the run's outside did (a lint raised
  /// by a command's reader, a rejected line, a signal, the deadline) happens again at its time;
  /// no effect, input or feed runs. Stops early when the replay diverges from the recording.
  private static func replay<Flow: RunnableFlow>(
    _ flow: Flow, _ replay: ReplaySession, renderer: Flow.Renderer, context: RunContext
  ) async -> FlowEnd {
    let store = Store(initialState: flow.initialState, reducer: flow.reduce)
    var observer = FlowObserver(flow: flow, renderer: renderer, context: context)
    var stepper = StoreReplay(store, onCancel: flow.cancelAction)
    var closed: StoreResult<Flow.State>?
    var deadlineReached = false
    var feed: JSONValue?
    // Every happening is read before the first is applied: a recording with a line no action
    // reads is refused before it prints anything of the flow.
    var happenings: [StoreHappening<Flow.Action>?] = []
    happenings.reserveCapacity(replay.recording.entries.count)
    for timed in replay.recording.entries {
      guard case .happening(let value) = timed.entry else {
        if case .feed(let value) = timed.entry, flow.feed(recorded: value) == nil {
          replay.fail(line: timed.line, "the flow's feed report is unreadable")
          return FlowEnd(status: .failed)
        }
        if case .deadline = timed.entry, flow.deadline == nil {
          replay.fail(line: timed.line, "a 'deadline' in a run that had none (no --duration)")
          return FlowEnd(status: .failed)
        }
        happenings.append(nil)
        continue
      }
      switch StoreHappening<Flow.Action>.fromRecorded(value) {
      case .success(let happening): happenings.append(happening)
      case .failure(let problem):
        replay.fail(line: timed.line, problem.message)
        return FlowEnd(status: .failed)
      }
    }
    var reachedUntil = false
    var started: Set<Int> = []
    for (timed, happening) in zip(replay.recording.entries, happenings) {
      guard !replay.hasStopped else { break }
      if let until = replay.until, timed.time > until {
        reachedUntil = true
        break
      }
      if timed.time > replay.clock.now.offset {
        do {
          try await replay.clock.sleep(until: .init(offset: timed.time), tolerance: nil)
        } catch {
          break  // the replay itself was cancelled (Ctrl-C)
        }
      }
      switch timed.entry {
      case .happening:
        guard closed == nil, let happening else { continue }
        // Only an effect that started can send or end: a line for any other is not one a run
        // wrote.
        if let serial = happening.effectSerial, !started.contains(serial) {
          replay.fail(line: timed.line, "effect \(serial) sends or ends, but never started")
          return FlowEnd(status: .failed)
        }
        stepper.apply(happening) { event in
          if case .effectStarted(let info) = event { started.insert(info.serial) }
          observer.observe(event)
        }
      case .closing:
        if closed == nil { closed = stepper.finish { observer.observe($0) } }
      case .warning(let warning): context.warnings.raise(warning)
      case .rejected(let error): context.reject(error)
      case .shutdown(let reason): replay.stopping(reason)
      case .deadline: deadlineReached = true
      case .feed(let value): feed = value
      case .suspended(true): context.suspensions.suspend(at: timed.time)
      case .suspended(false): context.suspensions.resume(at: timed.time)
      }
    }
    if replay.interruption != nil || replay.recording.end == nil && !reachedUntil {
      // The replay itself was stopped from outside, or the recording stops before the run's
      // end: nothing is invented past what was replayed (no final transition, no `end`).
      return FlowEnd(status: .completed)
    }
    if let until = replay.until, reachedUntil, !replay.hasStopped {
      // `--until`: the flow's state at that moment (the last state, when the flow had closed
      // before it), and no end. A moment past the recording's last line replays it all.
      if until > replay.clock.now.offset {
        try? await replay.clock.sleep(until: .init(offset: until), tolerance: nil)
      }
      replay.stopEarly()
      let state = closed?.state ?? stepper.state
      context.output.emit(
        "state", [("state", state.snapshot)], kind: .result,
        text: "state at \(EventOutput.formatElapsed(until).trimmingSpaces): \(state.summary)")
      return FlowEnd(status: .completed)
    }
    if replay.recording.end?.diedAtOnce == true {
      // SIGQUIT or a forced exit: the run died after its last happening, with no final
      // transition and no end.
      return FlowEnd(status: .completed)
    }
    let result = closed ?? stepper.finish { observer.observe($0) }
    guard let report = flow.feed(recorded: feed) else {
      replay.fail(
        line: replay.recording.lastLine, "the flow's feed report is missing or unreadable")
      return FlowEnd(status: .failed)
    }
    let outcome = FlowOutcome<Flow>(
      state: result.state, reason: result.reason, tally: observer.tally, feed: report,
      deadlineReached: deadlineReached)
    return flow.end(outcome, renderer: renderer, output: context.output)
  }

  /// What each child of a run's task group returns.
  private enum RunChild<State: Sendable, Tally: Sendable>: Sendable {
    case store(StoreResult<State>, Tally)
    case deadline
    case cancelled
  }

  /// The flow's input from `lines` or keys, as `use` says; with keys, the state they read, which
  /// the run must keep as the store reports it.
  private static func input<Flow: RunnableFlow>(
    _ flow: Flow, lines: RawLines?, keys use: KeyUse, context: RunContext
  ) -> (AnyInput<Flow.Action>?, reported: Locked<Flow.State>?) {
    let parsed = lines.map { AnyInput(context.input($0, parse: flow.action(line:))) }
    let keys = { () -> (AnyInput<Flow.Action>?, reported: Locked<Flow.State>?)? in
      guard let keys = flow.keys else { return nil }
      let reported = Locked(flow.initialState)
      let actions = context.terminal.keyActions(
        legend: keys.legend, coalescing: keys.coalescing,
        mapper: keyMapper(flow, keys, state: { reported.withLock { $0 } }))
      return actions.map { (AnyInput($0), reported) }
    }
    switch use {
    case .never: return (parsed, nil)
    case .unlessLines: return parsed.map { ($0, nil) } ?? keys() ?? (nil, nil)
    case .first: return keys() ?? (parsed, nil)
    }
  }

  /// Gives, at each read of keys, the map of that read's keys (told whether a key is the read's
  /// only one): `keys.map` against the flow's
  /// `state()` — as the store reported it once it had applied the action of every key before —
  /// or, when `keys` coalesces, against a draft of the state at the start of the read that the
  /// flow's reducer applies each of the read's actions to (their effects dropped), so that the
  /// read's last action holds what all its keys did.
  static func keyMapper<Flow: RunnableFlow>(
    _ flow: Flow, _ keys: KeyMap<Flow.State, Flow.Action>,
    state: @escaping @Sendable () -> Flow.State
  ) -> @Sendable (_ burst: [Key]) -> (Key) -> KeyResult<Flow.Action> {
    guard keys.coalescing else {
      return { burst in { key in keys.map(key, state(), alone: burst.count == 1) } }
    }
    return { burst in
      var draft = state()
      return { key in
        let result = keys.map(key, draft, alone: burst.count == 1)
        if case .action(let action) = result { _ = flow.reduce(&draft, action) }
        return result
      }
    }
  }
}

/// What a run does with each store event: the flow's tally, its renderer, and the lints.
private struct FlowObserver<Flow: RunnableFlow> {
  let flow: Flow
  let renderer: Flow.Renderer
  let context: RunContext
  var tally: Flow.Tally
  /// `nil` with `--allow all`: no lint is evaluated at all.
  var lints: PolicyLints?
  /// Where the state each transition leaves goes, for keys to read; `nil` when none do.
  let reported: Locked<Flow.State>?

  init(
    flow: Flow, renderer: Flow.Renderer, context: RunContext,
    reported: Locked<Flow.State>? = nil
  ) {
    self.flow = flow
    self.renderer = renderer
    self.context = context
    self.reported = reported
    tally = flow.initialTally
    lints = context.warnings.allSilenced ? nil : PolicyLints(waits: [SearchFlow.debounceName])
  }

  mutating func observe(_ event: StoreEvent<Flow.State, Flow.Action>) {
    if let reported, case .transition(_, _, let to, _) = event { reported.withLock { $0 = to } }
    flow.count(event, into: &tally)
    renderer.render(event)
    guard lints != nil else { return }
    if let warning = flow.lint(event) { context.warnings.raise(warning) }
    // The policy lints read effect events only: a transition, the most frequent event, never
    // crosses into them.
    if case .transition = event { return }
    let now = context.elapsed()
    if let warning = lints?.observe(event, at: now) { context.warnings.raise(warning) }
  }
}

extension StoreHappening {
  /// The effect that sent the action or ended, for an effect's happening.
  fileprivate var effectSerial: Int? {
    switch self {
    case .effectAction(_, let serial), .effectFinished(let serial, _): serial
    default: nil
    }
  }
}
