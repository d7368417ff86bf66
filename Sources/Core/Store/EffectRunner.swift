/// Which effect the current task is working for, so tools can attribute what it does.
///
/// The store binds this task-local around every effect it runs (task-locals flow into child
/// tasks), so a tracing clock can say "this sleep belonged to effect `search#3`" without the flow
/// passing anything around.
package enum EffectContext {
  /// The effect whose work is running on this task, if any.
  @TaskLocal package static var current: EffectInfo?
  /// The handle that stops the current effect, for test support that cancels one effect.
  @TaskLocal package static var handle: EffectHandle?
}

/// Performs an effect tree inside one task and reports how it ended.
///
/// Only `run` does real work; `merge` runs its parts in a child group. Cancellation, and errors
/// thrown once cancelled, end the effect as `cancelled`.
@usableFromInline struct EffectRunner<Action: Sendable>: Sendable {
  @usableFromInline let send: Send<Action>
  @usableFromInline let requestCancel: @Sendable (EffectID) -> Void

  @inlinable init(send: Send<Action>, requestCancel: @escaping @Sendable (EffectID) -> Void) {
    (self.send, self.requestCancel) = (send, requestCancel)
  }

  @usableFromInline func perform(_ effect: Effect<Action>) async -> EffectOutcome {
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
    case .run(_, _, let operation, let handler):
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
}

/// Lets the store cancel one effect task inside its task group.
///
/// Task groups cannot cancel a single child, so each effect runs its work in an inner group and
/// waits on this handle, which wakes on ``cancel()``, on the work's end or the run's cancellation.
@usableFromInline package final class EffectHandle: Sendable {
  private enum Phase {
    case running
    case waiting(CheckedContinuation<Void, Never>)
    case done
  }

  private let phase = Locked(Phase.running)

  @usableFromInline init() {}

  /// Asks the effect to stop; harmless after it ended.
  @usableFromInline package func cancel() {
    let continuation: CheckedContinuation<Void, Never>? = phase.withLock { phase in
      defer { phase = .done }
      guard case .waiting(let continuation) = phase else { return nil }
      return continuation
    }
    continuation?.resume()
  }

  /// Runs `work` until it returns or ``cancel()`` is called, whichever comes first; an effect
  /// cancelled before its task began (in the reducer turn that started it) does no work.
  @usableFromInline func run(_ work: @escaping @Sendable () async -> EffectOutcome) async
    -> EffectOutcome
  {
    let cancelledBeforeStart = phase.withLock { phase in
      if case .done = phase { true } else { false }
    }
    if cancelledBeforeStart { return .cancelled }
    return await withTaskGroup(of: EffectOutcome.self) { group in
      group.addTask {
        let outcome = await work()
        self.cancel()
        return outcome
      }
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow: Bool = phase.withLock { phase in
            guard case .running = phase else { return true }
            phase = .waiting(continuation)
            return false
          }
          if resumeNow { continuation.resume() }
        }
      } onCancel: {
        cancel()
      }
      group.cancelAll()
      return await group.next() ?? .cancelled
    }
  }
}
