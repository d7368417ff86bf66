/// SwiftUI's `.task(id:)` for reducers: work tied to an identity that only restarts when it changes.
///
/// A view whose identity changed on every render restarted its loading task forever. Keeping the
/// identity in state makes that impossible: asking again for the same id returns `.none`, and a new
/// id cancels the old work (with the `latest` policy, so the old effect has ended before the new
/// one starts).
///
/// ```swift
/// case .queryChanged(let query):
///   return state.search.task(id: query, key: "search") {
///     .run { send in send(.response(query, try await api.search(query))) }
///   }
/// ```
public struct TaskIdentity<ID: Hashable & Sendable>: Sendable {
  /// The identity whose work was started last, if any.
  public private(set) var current: ID?

  /// Creates an identity with no work started.
  public init() {}

  /// Starts `work` for `id` unless work for the same id was already started.
  ///
  /// - Parameters:
  ///   - id: The identity (for search: the query).
  ///   - key: The effect id the work is registered under.
  ///   - work: Builds the effect; called only when the id changed.
  /// - Returns: The work as a `latest` effect on `key`, or `.none` for the same id.
  public mutating func task<Action: Sendable>(
    id: ID, key: EffectID, _ work: () -> Effect<Action>
  ) -> Effect<Action> {
    guard current != id else { return .none }
    current = id
    return work().cancellable(id: key, policy: .latest)
  }

  /// Forgets the identity and cancels its work, like a view disappearing.
  public mutating func reset<Action: Sendable>(key: EffectID) -> Effect<Action> {
    current = nil
    return .cancel(id: key)
  }
}

extension TaskIdentity: Equatable where ID: Equatable {}
