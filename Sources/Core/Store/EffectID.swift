/// Names a family of effects so a reducer can cancel them or give them a concurrency policy.
///
/// A plain string is enough for a command-line flow and prints well in events and traces.
///
/// ```swift
/// extension EffectID { static let timer: EffectID = "timer" }
/// return .run { send in … }.cancellable(id: .timer, policy: .latest)
/// ```
public struct EffectID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The name shown in events and traces.
  public let name: String

  /// Creates an id from its name.
  public init(_ name: String) { self.name = name }
  public init(stringLiteral value: String) { self.name = value }
  public var description: String { name }
}

/// What a new effect does when an effect with the same id is already in flight.
///
/// TCA offers only "cancel in flight", and lets the old and new effect overlap while the old one
/// unwinds. These four cover the buttons people actually build.
public enum EffectPolicy: String, Sendable, CaseIterable {
  /// Cancel the running effect, wait until it has ended, then start the new one.
  case latest
  /// Ignore the new effect while one is in flight: a disabled button.
  case drop
  /// Start the new effect after the ones before it have ended, in order.
  case queue
  /// Run alongside the others; `cancel(id:)` still cancels them all.
  case parallel
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
  public var name: String {
    switch self {
    case .finished: "finished"
    case .cancelled: "cancelled"
    case .failed: "failed"
    }
  }
}
