import Testing

/// The effects one ``TestStore/send(_:_:sourceLocation:)`` started, to cancel or to wait for:
/// TCA's `TestStoreTask`, for a long-living effect such as a view's `.task`.
///
/// ```swift
/// let task = store.send(.task)
/// clock.advance(by: .seconds(3))
/// store.receive(.tick) { $0.count = 1 }
/// task.cancel()
/// ```
public struct TestStoreTask: Sendable {
  private let cancelEffects: @Sendable () -> Void
  private let inFlightEffects: @Sendable () -> [String]
  private let fail: @Sendable (String, SourceLocation) -> Void

  init(
    cancel: @escaping @Sendable () -> Void, inFlight: @escaping @Sendable () -> [String],
    fail: @escaping @Sendable (String, SourceLocation) -> Void
  ) {
    (cancelEffects, inFlightEffects, self.fail) = (cancel, inFlight, fail)
  }

  /// Whether any of the effects is still running or queued.
  public var isInFlight: Bool { !inFlightEffects().isEmpty }

  /// Cancels the effects and runs what their cancellation causes.
  public func cancel() { cancelEffects() }

  /// Fails unless every effect has ended once the work that can run has run: virtual time does
  /// not move by itself, so a test advances the clock first, or cancels.
  public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    let left = inFlightEffects()
    if !left.isEmpty {
      fail(
        "are still in flight: \(left.joined(separator: ", ")); advance the clock", sourceLocation)
    }
  }
}
