/// The four phases of loading something, as one value so impossible mixes cannot exist.
///
/// Separate `isLoading`/`error`/`value` properties allow "loading and failed" at once; this enum
/// does not. Its mutating methods are the only transitions, and each tells the caller whether it
/// applied, so a reducer can report an ignored action.
///
/// ```swift
/// var state = LoadState<Profile>.idle
/// state.startLoading()           // true: idle → loading
/// state.startLoading()           // false: already loading, ignored
/// state.cancel()                 // loading → idle: cancellation is not a failure
/// ```
public enum LoadState<Value: Sendable>: Sendable {
  /// Nothing loaded and nothing in flight.
  case idle
  /// A load is in flight.
  case loading
  /// The last load succeeded.
  case loaded(Value)
  /// The last load failed, with a message for people.
  case failed(String)

  /// The case name, for snapshots and text output.
  package var name: String {
    switch self {
    case .idle: "idle"
    case .loading: "loading"
    case .loaded: "loaded"
    case .failed: "failed"
    }
  }

  /// Whether a load is in flight.
  public var isLoading: Bool {
    if case .loading = self { return true }
    return false
  }

  /// Moves to `loading` unless a load is already in flight.
  /// - Returns: `false` when already loading (the new load must be ignored).
  @discardableResult
  public mutating func startLoading() -> Bool {
    guard !isLoading else { return false }
    self = .loading
    return true
  }

  /// Moves a failed load back to `loading`.
  /// - Returns: `false` unless the state was `failed`.
  @discardableResult
  public mutating func retry() -> Bool {
    guard case .failed = self else { return false }
    self = .loading
    return true
  }

  /// Stores the result of the load in flight.
  /// - Returns: `false` when no load was in flight (a late result is dropped).
  @discardableResult
  public mutating func finish(_ result: Result<Value, LoadFailure>) -> Bool {
    guard isLoading else { return false }
    switch result {
    case .success(let value): self = .loaded(value)
    case .failure(let failure): self = .failed(failure.message)
    }
    return true
  }

  /// Returns a load in flight to `idle`: cancellation is never shown as an error.
  /// - Returns: `false` when nothing was loading.
  @discardableResult
  public mutating func cancel() -> Bool {
    guard isLoading else { return false }
    self = .idle
    return true
  }
}

extension LoadState: Equatable where Value: Equatable {}

/// A load failure as a message people can read; the reason `LoadState.failed` carries.
public struct LoadFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, in one line.
  public let message: String

  /// Creates a failure with a one-line message.
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
