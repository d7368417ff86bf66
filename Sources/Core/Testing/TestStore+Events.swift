import LoadctlCore
import Testing

/// How a ``TestStore`` reads its store's events.
extension TestStore {
  static func note(_ event: StoreEvent<State, Action>, in log: inout Log) {
    switch event {
    case .transition(_, _, _, let info):
      log.pending.append(event)
      log.lastFromTest = info == nil
    case .ignored:
      log.pending.append(event)
      log.lastFromTest = log.capture != nil
    case .effectStarted(let info), .effectQueued(let info):
      log.live[info.serial] = info
      log.startedAt[info.serial] = log.location
      if log.lastFromTest { log.capture?.append(info.serial) }
      log.effectEvents.append(event)
    case .effectFinished(let info, _):
      log.live[info.serial] = nil
      log.startedAt[info.serial] = nil
      log.handles[info.serial] = nil
      log.effectEvents.append(event)
    case .effectDropped:
      log.effectEvents.append(event)
    }
  }

  /// `operation`, telling the log how to cancel its effect, and doing nothing when a
  /// ``TestStoreTask`` cancelled the effect before it started.
  static func tracked(
    _ operation: @escaping Effect<Action>.Operation, log: Locked<Log>
  ) -> Effect<Action>.Operation {
    { send in
      if let info = EffectContext.current, let handle = EffectContext.handle {
        let cancelled = log.withLock { log in
          log.handles[info.serial] = handle
          return log.cancelled.contains(info.serial)
        }
        if cancelled { throw CancellationError() }
      }
      try await operation(send)
    }
  }

  /// A `catch:` for an effect without one: the error is a test failure, recorded where the step
  /// that started the effect was written.
  static func uncaught(log: Locked<Log>) -> Effect<Action>.Handler {
    { error, _ in
      let info = EffectContext.current
      log.withLock { log in
        let location = info.flatMap { log.startedAt[$0.serial] } ?? log.location
        log.failures.append(
          (
            "effect \(info?.label ?? "effect") threw \(error), which no catch: handled; handle "
              + "it with run(_:catch:) or a do block", location
          ))
      }
    }
  }

  static func action(of event: StoreEvent<State, Action>) -> Action {
    switch event {
    case .transition(let action, _, _, _), .ignored(let action, _, _): action
    default: preconditionFailure("only applied actions are pending: \(event)")
    }
  }

  static func state(after event: StoreEvent<State, Action>) -> State {
    switch event {
    case .transition(_, _, let state, _), .ignored(_, _, let state): state
    default: preconditionFailure("only applied actions are pending: \(event)")
    }
  }

  /// The fields that differ, or both states whole when no field tells them apart.
  static func describe(_ expected: State, _ actual: State) -> String {
    let lines = stateDiff(expected, actual)
    guard lines.isEmpty else { return lines.joined(separator: "\n") }
    return "  − \(expected)\n  + \(actual)"
  }
}
