import LoadctlCore

/// A flow as the runner sees it: its state and reducer, the actions it starts with, how input
/// lines and keys become actions, how its events print, and how its run ends.
///
/// A feature folder implements it with what is its own; ``FlowRunner`` runs any of them, so input
/// lines, keys, signals (as the run's cancellation) and effect results enter a flow in one place,
/// and its events leave it in one place.
package protocol RunnableFlow: Sendable {
  associatedtype State: ReportableState
  associatedtype Action: ReportableAction
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
  var keys: KeyMap<Action>? { get }
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

/// What a key press does in a flow.
package struct KeyMap<Action: Sendable>: Sendable {
  /// The one line shown when the terminal starts reading keys.
  package let legend: String
  package let map: @Sendable (Key) -> KeyResult<Action>

  package init(legend: String, map: @escaping @Sendable (Key) -> KeyResult<Action>) {
    self.legend = legend
    self.map = map
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
  package var keys: KeyMap<Action>? { nil }
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
    let ((result, tally, deadlineReached), feed) = await flow.withFeed(context: context) {
      feed in
      let input = feed ?? actions ?? Self.input(flow, lines: lines, keys: keys, context: context)
      return await Self.runStore(flow, input: input, renderer: renderer, context: context)
    }
    let outcome = FlowOutcome<Flow>(
      state: result?.state ?? flow.initialState, reason: result?.reason ?? .cancelled,
      tally: tally, feed: feed, deadlineReached: deadlineReached)
    return flow.end(outcome, renderer: renderer, output: context.output)
  }

  /// Runs the flow's store over `input` beside its deadline, if it has one.
  /// - Returns: The store's result (`nil` if it never returned one), the tally, and whether the
  ///   deadline ended the run.
  private static func runStore<Flow: RunnableFlow>(
    _ flow: Flow, input: AnyInput<Flow.Action>?, renderer: Flow.Renderer, context: RunContext
  ) async -> (StoreResult<Flow.State>?, Flow.Tally, Bool) {
    let store = Store(initialState: flow.initialState, reducer: flow.reduce)
    let inputs = Prepended(flow.initialActions, then: input)
    typealias Child = RunChild<Flow.State, Flow.Tally>
    return await withTaskGroup(of: Child.self) { group in
      group.addTask {
        var tally = flow.initialTally
        // `--allow all`: no lint is evaluated at all.
        var lints = context.warnings.allSilenced ? nil : PolicyLints()
        let result = await context.run(store, inputs: inputs, onCancel: flow.cancelAction) {
          event in
          flow.count(event, into: &tally)
          renderer.render(event)
          guard lints != nil else { return }
          if let warning = flow.lint(event) { context.warnings.raise(warning) }
          // The policy lints read effect events only: a transition, the most frequent event,
          // never crosses into them.
          if case .transition = event { return }
          if let warning = lints?.observe(event, at: context.elapsed()) {
            context.warnings.raise(warning)
          }
        }
        return .store(result, tally)
      }
      if let deadline = flow.deadline {
        group.addTask { [clock = context.clock] in
          do {
            try await clock.sleep(for: deadline)
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

  /// What each child of a run's task group returns.
  private enum RunChild<State: Sendable, Tally: Sendable>: Sendable {
    case store(StoreResult<State>, Tally)
    case deadline
    case cancelled
  }

  private static func input<Flow: RunnableFlow>(
    _ flow: Flow, lines: RawLines?, keys use: KeyUse, context: RunContext
  ) -> AnyInput<Flow.Action>? {
    let parsed = lines.map { AnyInput(context.input($0, parse: flow.action(line:))) }
    let keys = {
      flow.keys.flatMap { keys in
        context.terminal.keyActions(legend: keys.legend, map: keys.map).map { AnyInput($0) }
      }
    }
    switch use {
    case .never: return parsed
    case .unlessLines: return parsed ?? keys()
    case .first: return keys() ?? parsed
    }
  }
}
