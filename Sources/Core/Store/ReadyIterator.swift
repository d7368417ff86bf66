/// An input whose next element can be taken without waiting when it is already there: a line
/// already read, an action already parsed.
///
/// A ``Store`` whose input iterator conforms reads such elements on its run loop itself, between
/// steps, instead of waiting for its input task to hand each one over; whatever needs a wait is
/// still read by the input task, so the loop never blocks on its input.
public protocol ReadyIterator<Element>: AsyncIteratorProtocol where Failure == Never {
  /// The next element if it is there now; `nil` when it would need a wait or the input has
  /// ended (`next()` then says which). Never suspends and never blocks for long.
  mutating func nextReady() -> Element?
}
