/// Performs an effect tree inside one task and reports how it ended.
///
/// Only `run` does real work; `merge` runs its parts in a child group, `concatenate` runs them in
/// order. Cancellation, and errors thrown once cancelled, end the effect as `cancelled`.
struct EffectRunner<Action: Sendable>: Sendable {
  let send: Send<Action>
  let requestCancel: @Sendable (EffectID) -> Void

  func perform(_ effect: Effect<Action>) async -> EffectOutcome {
    switch effect.kind {
    case .none, .ignored, .finishRun:
      return .finished
    case .send(let action):
      send(action)
      return .finished
    case .cancel(let id):
      requestCancel(id)
      return .finished
    case .cancellable(let inner, _, _):
      return await perform(inner)
    case .run(_, let operation, let handler):
      return await run(operation, handler)
    case .concatenate(let effects):
      for effect in effects {
        let outcome = await perform(effect)
        if outcome != .finished || Task.isCancelled {
          return Task.isCancelled ? .cancelled : outcome
        }
      }
      return .finished
    case .merge(let effects):
      return await withTaskGroup(of: EffectOutcome.self) { group in
        for effect in effects {
          group.addTask { await perform(effect) }
        }
        var worst = EffectOutcome.finished
        for await outcome in group where outcome != .finished && worst == .finished {
          worst = outcome
        }
        return worst
      }
    }
  }

  private func run(
    _ operation: Effect<Action>.Operation, _ handler: Effect<Action>.Handler?
  ) async -> EffectOutcome {
    do {
      try await operation(send)
      return Task.isCancelled ? .cancelled : .finished
    } catch is CancellationError {
      return .cancelled
    } catch {
      if Task.isCancelled { return .cancelled }
      await handler?(error, send)
      return .failed(String(describing: error))
    }
  }
}
