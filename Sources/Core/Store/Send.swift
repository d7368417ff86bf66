/// Lets an effect feed actions back into its store.
///
/// Sending is synchronous and never blocks: the action joins the store's mailbox and is applied
/// in order with everything else. An effect that has been cancelled can still call `send`, but the
/// store drops what it sends, so a stale response can never reach the state.
public struct Send<Action: Sendable>: Sendable {
  private let deliver: @Sendable (Action) -> Void

  /// Wraps a delivery function; stores create these, tests rarely need to.
  public init(_ deliver: @escaping @Sendable (Action) -> Void) {
    self.deliver = deliver
  }

  /// Sends `action` to the store unless the current task is cancelled.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    deliver(action)
  }
}
