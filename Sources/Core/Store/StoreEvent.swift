/// Identifies one effect instance for observers, from registration to its end.
public struct EffectInfo: Sendable, Equatable {
  /// Unique within one run, counting from 1 in registration order.
  public let serial: Int
  /// The id it was registered under, if any.
  public let id: EffectID?
  /// The policy it was registered with, if it has an id.
  public let policy: EffectPolicy?
  /// The name given to `run(name:)`, if any.
  public let name: String?
  /// The detail given to ``Effect/run(name:detail:_:catch:)``, if any: what the effect is about.
  public let detail: EffectDetail?

  /// A label for events: the name, else the id, else "effect".
  public var label: String { name ?? id?.name ?? "effect" }

  @usableFromInline init(
    serial: Int, id: EffectID?, policy: EffectPolicy?, name: String?,
    detail: EffectDetail? = nil
  ) {
    (self.serial, self.id, self.policy, self.name, self.detail) =
      (serial, id, policy, name, detail)
  }
}

/// How an effect ended, as observers see it.
public enum EffectOutcome: Sendable, Equatable {
  /// The operation returned.
  case finished
  /// It was cancelled (by id, by policy, or with the run); never reported as a failure.
  case cancelled
  /// It threw an error that was not cancellation.
  case failed(String)

  /// The outcome's name for events.
  package var name: String {
    switch self {
    case .finished: "finished"
    case .cancelled: "cancelled"
    case .failed: "failed"
    }
  }
}

/// One step of a store's run, in the order it happened, for renderers, traces and tests.
///
/// Observers get these synchronously from the run loop, so what they print is exactly the order
/// the state went through; they must not block.
public enum StoreEvent<State: Sendable, Action: Sendable>: Sendable {
  /// An action was applied: the state went from `from` to `to` (possibly equal).
  case transition(action: Action, from: State, to: State, effect: EffectInfo?)
  /// The reducer refused the action now (`Effect.ignored`); the state did not change.
  case ignored(action: Action, reason: String, state: State)
  /// An effect registered with an id is waiting for the one before it (`latest`, `queue`).
  case effectQueued(EffectInfo)
  /// An effect began running.
  case effectStarted(EffectInfo)
  /// An effect was not run because one with the same id is in flight (`drop`).
  case effectDropped(EffectInfo)
  /// An effect ended; a queued effect cancelled before it started ends here too.
  case effectFinished(EffectInfo, EffectOutcome)
}

/// Why a store's run returned.
public enum StoreStopReason: String, Sendable, Equatable {
  /// Inputs ended and no effect was in flight.
  case idle
  /// An effect returned by the reducer asked the run to finish.
  case finished
  /// The task running the store was cancelled.
  case cancelled
}

/// The end of a run: the last state and why it stopped.
public struct StoreResult<State: Sendable>: Sendable {
  /// The state after the last applied action.
  public let state: State
  /// Why the run returned.
  public let reason: StoreStopReason

  @usableFromInline init(state: State, reason: StoreStopReason) {
    (self.state, self.reason) = (state, reason)
  }
}
