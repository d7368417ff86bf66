/// Work a reducer asks the store to do after a state change, described as data.
///
/// A reducer stays pure by returning an `Effect` instead of doing the work. The store registers
/// the effect the moment it is returned (so a `cancel(id:)` in the same turn cancels it), runs it
/// as a child task of its own run, and feeds the actions it sends back through the reducer.
///
/// ```swift
/// case .delayedIncrement:
///   state.isLoading = true
///   return .run { [clock] send in
///     try await clock.sleep(for: .seconds(1))
///     send(.incrementResponse)
///   }
///   .cancellable(id: "delayed", policy: .drop)
/// ```
public struct Effect<Action: Sendable>: Sendable {
  /// The async body of a `run` effect.
  public typealias Operation = @Sendable (Send<Action>) async throws -> Void
  /// Called with a non-cancellation error thrown by a `run` effect.
  public typealias Handler = @Sendable (any Error, Send<Action>) async -> Void

  indirect enum Kind: Sendable {
    case none
    case send(Action)
    case run(name: String?, Operation, Handler?)
    case merge([Effect])
    case concatenate([Effect])
    case cancellable(Effect, id: EffectID, policy: EffectPolicy)
    case cancel(EffectID)
    case ignored(String)
    case finishRun
  }

  let kind: Kind

  /// Does nothing.
  public static var none: Effect { Effect(kind: .none) }

  /// Feeds `action` back into the store right after the current one, before anything else.
  public static func send(_ action: Action) -> Effect { Effect(kind: .send(action)) }

  /// Runs async work that may send actions back.
  ///
  /// `CancellationError`, and any error thrown after the task was cancelled, are swallowed: a
  /// cancelled effect ends as `cancelled`, never as a failure. Other errors go to `handler`; with
  /// no handler, observers see the effect end as `failed` with the error's description.
  /// - Parameters:
  ///   - name: A label for events and traces.
  ///   - operation: The work; it runs as a child task of the store's run.
  ///   - handler: Turns a failure into actions.
  public static func run(
    name: String? = nil,
    _ operation: @escaping Operation,
    catch handler: Handler? = nil
  ) -> Effect {
    Effect(kind: .run(name: name, operation, handler))
  }

  /// Runs all `effects` at once.
  public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

  /// Runs all `effects` at once.
  public static func merge(_ effects: [Effect]) -> Effect { Effect(kind: .merge(effects)) }

  /// Runs `effects` one after another in a single task.
  ///
  /// Inside a concatenation, `cancel(id:)` takes effect when it is reached, and a nested
  /// `cancellable` runs as part of the concatenation (cancel the concatenation as a whole by
  /// giving it an id).
  public static func concatenate(_ effects: Effect...) -> Effect { concatenate(effects) }

  /// Runs `effects` one after another in a single task.
  public static func concatenate(_ effects: [Effect]) -> Effect {
    Effect(kind: .concatenate(effects))
  }

  /// Cancels every in-flight or waiting effect registered under `id`.
  public static func cancel(id: EffectID) -> Effect { Effect(kind: .cancel(id)) }

  /// Reports that the action was not allowed now and changed nothing, with the reason.
  public static func ignored(_ reason: String) -> Effect { Effect(kind: .ignored(reason)) }

  /// Ends the store's run after this action; effects still in flight are cancelled.
  public static var finishRun: Effect { Effect(kind: .finishRun) }

  /// Registers this effect under `id` with a concurrency `policy`.
  public func cancellable(id: EffectID, policy: EffectPolicy = .parallel) -> Effect {
    Effect(kind: .cancellable(self, id: id, policy: policy))
  }

  /// Combines this effect with `other`, running both at once.
  public func merge(with other: Effect) -> Effect { .merge(self, other) }

  /// Whether the effect does nothing at all.
  public var isNone: Bool {
    if case .none = kind { return true }
    return false
  }
}
