import LoadctlCore

/// A counter that saves its value a moment after the last change.
///
/// Each change starts a save effect under the id `save` with the `latest` policy: a change while
/// a save waits cancels that save and starts a new one, so a burst of taps saves once, with the
/// final value. The wait goes through the injected clock, so tests run it on virtual time.
public struct Counter: Sendable {
  public struct State: Equatable, Sendable {
    public var count = 0
    /// The last value saved, if any.
    public var saved: Int?

    public init() {}
  }

  /// `Codable`, so that a run can be recorded to a file (`counter-flow --record FILE`).
  public enum Action: Codable, Equatable, Sendable {
    case increment
    case decrement
    /// The save effect finished with this value.
    case saved(Int)
  }

  public static let saveID: EffectID = "save"

  let clock: any Clock<Duration>
  let saveDelay: Duration

  public init(clock: any Clock<Duration>, saveDelay: Duration = .seconds(1)) {
    self.clock = clock
    self.saveDelay = saveDelay
  }

  public func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment, .decrement:
      state.count += action == .increment ? 1 : -1
      return .run { [clock, saveDelay, count = state.count] send in
        try await clock.sleep(for: saveDelay)
        send(.saved(count))
      }
      .cancellable(id: Self.saveID, policy: .latest)
    case .saved(let value):
      state.saved = value
      return .none
    }
  }
}
