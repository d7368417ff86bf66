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

  @usableFromInline indirect enum Kind: Sendable {
    case none
    case send(Action)
    case run(name: String?, detail: EffectDetail?, Operation, Handler?)
    case merge([Effect])
    case cancellable(Effect, id: EffectID, policy: EffectPolicy)
    case cancel(EffectID)
    case ignored(String)
    case finishRun
  }

  @usableFromInline let kind: Kind

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
    Effect(kind: .run(name: name, detail: nil, operation, handler))
  }

  /// Runs async work that may send actions back, as ``run(name:_:catch:)`` does, with what the
  /// work is about for observers: `detail` comes with every event of the effect, in
  /// ``EffectInfo/detail``.
  /// - Parameters:
  ///   - name: A label for events and traces.
  ///   - detail: What observers are told the work is about (the request it sends, say); the
  ///     store never reads it.
  ///   - operation: The work; it runs as a child task of the store's run.
  ///   - handler: Turns a failure into actions.
  public static func run(
    name: String? = nil,
    detail: EffectDetail,
    _ operation: @escaping Operation,
    catch handler: Handler? = nil
  ) -> Effect {
    Effect(kind: .run(name: name, detail: detail, operation, handler))
  }

  /// Runs all `effects` at once.
  public static func merge(_ effects: Effect...) -> Effect { Effect(kind: .merge(effects)) }

  /// Cancels every in-flight or waiting effect registered under `id`.
  public static func cancel(id: EffectID) -> Effect { Effect(kind: .cancel(id)) }

  /// Reports that the action was not allowed now and changed no state, with the reason. Merged
  /// with other effects, they are still done: a `run` registered under a `drop` policy is how a
  /// second tap on a busy button is both ignored and reported dropped.
  public static func ignored(_ reason: String) -> Effect { Effect(kind: .ignored(reason)) }

  /// Ends the store's run after this action; effects still in flight are cancelled.
  public static var finishRun: Effect { Effect(kind: .finishRun) }

  /// Registers this effect's async work (its `run` effects) under `id` with a concurrency
  /// `policy`. Its other parts (`send`, `cancel`, `finishRun`) act in the store's turn as they
  /// would unwrapped.
  public func cancellable(id: EffectID, policy: EffectPolicy = .parallel) -> Effect {
    Effect(kind: .cancellable(self, id: id, policy: policy))
  }

  /// The async work in this effect: its `run` effects (and the `cancellable` ones), merged; `nil`
  /// when it has none. What ``cancellable(id:policy:)`` registers under its id.
  @usableFromInline var work: Effect? {
    switch kind {
    case .run, .cancellable: return self
    case .merge(let effects):
      let parts = effects.compactMap(\.work)
      return parts.count <= 1 ? parts.first : Effect(kind: .merge(parts))
    case .none, .send, .cancel, .ignored, .finishRun: return nil
    }
  }

  /// The parts of this effect that act in the store's turn (`send`, `cancel`, `finishRun`, …),
  /// which ``cancellable(id:policy:)`` leaves as they are.
  @usableFromInline var turnParts: [Effect] {
    switch kind {
    case .run, .cancellable, .none: []
    case .merge(let effects): effects.flatMap(\.turnParts)
    case .send, .cancel, .ignored, .finishRun: [self]
    }
  }

  /// The reason when this effect (or a part of a merge) says the action was ignored.
  @inlinable var ignoredReason: String? {
    switch kind {
    case .ignored(let reason): reason
    case .merge(let effects): effects.lazy.compactMap(\.ignoredReason).first
    default: nil
    }
  }

  /// The name of a `run` effect, for events.
  @inlinable var name: String? {
    switch kind {
    case .run(let name, _, _, _): name
    case .cancellable(let inner, _, _): inner.name
    default: nil
    }
  }

  /// The detail of a `run` effect, for events.
  @inlinable var detail: EffectDetail? {
    switch kind {
    case .run(_, let detail, _, _): detail
    case .cancellable(let inner, _, _): inner.detail
    default: nil
    }
  }
}

/// What one effect is about, for observers: given when the effect is made
/// (``Effect/run(name:detail:_:catch:)``) and carried, unchanged, in the ``EffectInfo`` of each
/// of its events, so that an observer reads it there rather than working it out from the state.
///
/// It holds any `Sendable`, `Equatable` value; the store never reads it. Two details are equal
/// when they hold values of the same type that are equal.
public struct EffectDetail: Sendable, Equatable {
  @usableFromInline let base: any Sendable & Equatable

  /// A detail holding `value`.
  @inlinable public init(_ value: some Sendable & Equatable) { base = value }

  /// The value held, when it is a `Value`; otherwise `nil`.
  @inlinable public func value<Value>(as type: Value.Type = Value.self) -> Value? {
    base as? Value
  }

  /// Equal when both hold values of the same dynamic type that are equal.
  @inlinable public static func == (lhs: EffectDetail, rhs: EffectDetail) -> Bool {
    func isEqual<Value: Equatable>(_ value: Value) -> Bool {
      type(of: lhs.base) == type(of: rhs.base) && rhs.value(as: Value.self) == value
    }
    return isEqual(lhs.base)
  }
}

/// Lets an effect feed actions back into its store.
///
/// Sending is synchronous and never blocks: the action joins the store's mailbox and is applied
/// in order with everything else. An effect that has been cancelled can still call `send`, but the
/// store drops what it sends, so a stale response can never reach the state.
public struct Send<Action: Sendable>: Sendable {
  private let deliver: @Sendable (Action) -> Void

  @usableFromInline package init(_ deliver: @escaping @Sendable (Action) -> Void) {
    self.deliver = deliver
  }

  /// Sends `action` to the store unless the current task is cancelled.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    deliver(action)
  }
}

/// Names a family of effects so a reducer can cancel them or give them a concurrency policy.
///
/// An id wraps any `Hashable & Sendable` value: a string, or a case of an enum of the flow's own,
/// as with TCA's `CancelID`. Two ids are equal when they wrap equal values of the same type.
///
/// ```swift
/// extension EffectID { static let timer: EffectID = "timer" }
/// return .run { send in … }.cancellable(id: .timer, policy: .latest)
///
/// enum CancelID { case search }
/// return .run { send in … }.cancellable(id: CancelID.search, policy: .replace)
/// ```
public struct EffectID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// A string id is kept as it is, so that comparing and hashing it boxes nothing.
  private enum Base: Sendable {
    case name(String)
    case value(any Hashable & Sendable)
  }

  private let base: Base

  /// The name shown in events and traces: the string itself, or the wrapped value's
  /// description.
  public var name: String {
    switch base {
    case .name(let name): name
    case .value(let value): String(describing: value)
    }
  }

  /// Creates an id from its name.
  public init(_ name: String) { base = .name(name) }

  /// Creates an id wrapping `value`; a `String` is a name, an `EffectID` is taken as it is.
  public init(_ value: some Hashable & Sendable) {
    if let id = value as? EffectID {
      base = id.base
    } else if let name = value as? String {
      base = .name(name)
    } else {
      base = .value(value)
    }
  }

  public init(stringLiteral value: String) { base = .name(value) }
  public var description: String { name }

  public static func == (lhs: EffectID, rhs: EffectID) -> Bool {
    switch (lhs.base, rhs.base) {
    case (.name(let left), .name(let right)): left == right
    case (.value(let left), .value(let right)): AnyHashable(left) == AnyHashable(right)
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch base {
    case .name(let name): hasher.combine(name)
    case .value(let value): hasher.combine(AnyHashable(value))
    }
  }
}

extension Effect {
  /// Cancels every in-flight or waiting effect registered under the id wrapping `id`.
  @_disfavoredOverload
  public static func cancel(id: some Hashable & Sendable) -> Effect {
    cancel(id: EffectID(id))
  }

  /// Registers this effect's async work under the id wrapping `id`, as the `EffectID` overload
  /// does.
  @_disfavoredOverload
  public func cancellable(
    id: some Hashable & Sendable, policy: EffectPolicy = .parallel
  ) -> Effect {
    cancellable(id: EffectID(id), policy: policy)
  }

  /// The same effect with each `run` operation and its handler replaced by `transform`'s, for
  /// test support that must see every effect's work (``EffectContext`` tells which effect runs).
  package func mapRuns(
    _ transform: @escaping @Sendable (@escaping Operation, Handler?) -> (Operation, Handler?)
  ) -> Effect {
    switch kind {
    case .run(let name, let detail, let operation, let handler):
      let (operation, handler) = transform(operation, handler)
      return Effect(kind: .run(name: name, detail: detail, operation, handler))
    case .merge(let effects):
      return Effect(kind: .merge(effects.map { $0.mapRuns(transform) }))
    case .cancellable(let inner, let id, let policy):
      return Effect(kind: .cancellable(inner.mapRuns(transform), id: id, policy: policy))
    case .none, .send, .cancel, .ignored, .finishRun:
      return self
    }
  }
}

/// What a new effect does when an effect with the same id is already in flight.
///
/// `latest` and `replace` both cancel the effect in flight; they differ in when the new one
/// starts. `latest` waits for the cancelled one to end, so two never run at once: right for work
/// that holds something only one may hold (a child process group, a port, a file). `replace`
/// starts the new one at once, while the cancelled one unwinds: TCA's
/// `cancellable(id:cancelInFlight: true)`, right for work with nothing to release.
public enum EffectPolicy: String, Sendable, CaseIterable {
  /// Cancel the running effect, wait until it has ended, then start the new one.
  case latest
  /// Cancel the running effect and start the new one at once, without waiting for the cancelled
  /// one to end (TCA's `cancelInFlight: true`); its actions are dropped from the moment it is
  /// cancelled.
  case replace
  /// Ignore the new effect while one is in flight: a disabled button. One cancelled but still
  /// ending is not in flight: the new effect starts once it has ended (two never run at once).
  case drop
  /// Start the new effect after the ones before it have ended, in order.
  case queue
  /// Run alongside the others; `cancel(id:)` still cancels them all.
  case parallel
}
