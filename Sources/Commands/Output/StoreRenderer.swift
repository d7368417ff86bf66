import LoadctlCore

/// Prints a store's events — transitions, ignored actions, effect lifetimes — through ``EventOutput``.
///
/// JSON carries full `from`/`to` snapshots for every transition; text shows `from → to` (or what
/// the flow's `transitionText` prefers, such as only the fields that changed). A renderer only
/// observes: it never changes state or starts work.
package struct StoreRenderer<State: ReportableState, Action: ReportableAction>: Sendable {
  /// Custom text for a transition; `nil` result falls back to `from → to`.
  package typealias TransitionText = @Sendable (Action, State, State) -> String?
  /// Custom text for an effect's step; `nil` prints nothing in text mode.
  package typealias EffectText = @Sendable (EffectInfo, EffectPhase) -> String?

  /// A step in an effect's life, as text mode names it.
  package enum EffectPhase: String, Sendable {
    case started, queued, dropped, finished, cancelled, failed

    init(_ outcome: EffectOutcome) {
      switch outcome {
      case .finished: self = .finished
      case .cancelled: self = .cancelled
      case .failed: self = .failed
      }
    }
  }

  let output: EventOutput
  let transitionText: TransitionText?
  let effectText: EffectText
  /// What a command printed, when the action carries it: shown as `output` events of the
  /// effect that sent it, not as a transition (the state stays).
  let commandOutput: @Sendable (Action) -> ExternalCommand.Output?

  /// - Parameters:
  ///   - transitionText: Flow-specific text for a transition.
  ///   - effectText: Text for an effect's step; by default only cancellations, failures and
  ///     drops are shown.
  ///   - commandOutput: The command's lines an action carries, if it does.
  package init(
    output: EventOutput, transitionText: TransitionText? = nil, effectText: EffectText? = nil,
    commandOutput: @escaping @Sendable (Action) -> ExternalCommand.Output? = { _ in nil }
  ) {
    self.output = output
    self.transitionText = transitionText
    self.effectText = effectText ?? StoreRenderer.defaultEffectText
    self.commandOutput = commandOutput
  }

  /// Prints one event.
  package func render(_ event: StoreEvent<State, Action>) {
    let style = output.style
    switch event {
    case .transition(let action, _, _, let effect) where commandOutput(action) != nil:
      commandOutput(action)?.emit(serial: effect?.serial, to: output)
    case .transition(let action, let from, let to, _):
      let text = {
        if let custom = transitionText?(action, from, to) { return custom }
        let change =
          from.snapshot == to.snapshot
          ? "\(to.summary) (no change)" : "\(from.summary) → \(style.bold(to.summary))"
        return "\(action.summary)  \(change)"
      }
      let (before, after) = (from.snapshot, to.snapshot)
      let extra = action.fields
      var fields: [(String, JSONValue)] = []
      fields.reserveCapacity(extra.count + 3)
      fields.append(("action", .string(action.name)))
      fields += extra
      fields.append(("from", before))
      fields.append(("to", after))
      output.emit(
        "transition", fields, text: text(),
        observed: .transition(action.name, from: before, to: after))
    case .ignored(let action, let reason, let state):
      output.emit(
        "ignored",
        [("action", .string(action.name))] + action.fields
          + [("reason", .string(reason)), ("state", state.snapshot)],
        text: style.yellow("ignored: \(action.summary) (\(reason))"),
        observed: .instant("\(action.name) ignored"))
    case .effectStarted(let info):
      effect("effect_started", info, phase: .started, observed: .started(info))
    case .effectQueued(let info):
      effect("effect_queued", info, phase: .queued)
    case .effectDropped(let info):
      effect("effect_dropped", info, phase: .dropped)
    case .effectFinished(let info, let outcome):
      var extra: [(String, JSONValue)] = [("outcome", .string(outcome.name))]
      if case .failed(let message) = outcome { extra.append(("message", .string(message))) }
      effect(
        "effect_finished", info, phase: EffectPhase(outcome), extra: extra,
        observed: .effectFinished(serial: info.serial, outcome: outcome))
    }
  }

  private func effect(
    _ event: String, _ info: EffectInfo, phase: EffectPhase, extra: [(String, JSONValue)] = [],
    observed: ObservedEvent? = nil
  ) {
    var fields: [(String, JSONValue)] = [
      ("effect", .string(info.label)), ("serial", .int(info.serial)),
    ]
    if let id = info.id { fields.append(("id", .string(id.name))) }
    if let policy = info.policy { fields.append(("policy", .string(policy.rawValue))) }
    output.emit(
      event, fields + extra, text: effectText(info, phase).map(output.style.dim),
      observed: observed)
  }

  private static func defaultEffectText(_ info: EffectInfo, _ phase: EffectPhase) -> String? {
    switch phase {
    case .cancelled: "effect \(info.label) cancelled"
    case .failed: "effect \(info.label) failed"
    case .dropped: "effect \(info.label) dropped (\(info.policy?.rawValue ?? "drop") policy)"
    case .queued: "effect \(info.label) queued (\(info.policy?.rawValue ?? "queue") policy)"
    case .started, .finished: nil
    }
  }
}
