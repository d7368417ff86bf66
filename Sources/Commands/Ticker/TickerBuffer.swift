/// What a price feed does with values its consumer has not taken yet: `--buffer`.
///
/// A live source (the timer, a pipe, a terminal) cannot wait for a slow consumer (a stalled pipe
/// reader, a paused terminal) without its prices going stale, so its values queue in the stream
/// and this policy decides what is lost when the queue is full. Sources that can wait (the random
/// feed at `--interval 0`, a regular file, any input on virtual time) are pulled by the consumer
/// instead and never drop.
package enum TickerBuffer: Sendable, Equatable, CustomStringConvertible {
  /// Keep the newest `n` values; the oldest queued value is dropped for each new one.
  case newest(Int)
  /// Keep the oldest `n` values; new values are dropped while the queue is full.
  case oldest(Int)
  /// Keep everything.
  case unbounded

  /// The default, `newest:1024`: a viewer that fell behind catches up to the current price, and
  /// a short stall (Ctrl-S, a scrolled tmux pane) still loses nothing.
  package static let `default` = TickerBuffer.newest(1024)

  /// Parses `newest:N`, `oldest:N` (N ≥ 1) or `unbounded`.
  /// - Throws: A usage error (exit 64) naming `--buffer` and the accepted forms.
  package static func parse(_ text: String) throws(UsageError) -> TickerBuffer {
    if text == "unbounded" { return .unbounded }
    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0] == "newest" || parts[0] == "oldest" else {
      throw .invalidValue(
        "invalid value '\(text)' for '--buffer' (use newest:N, oldest:N or unbounded)",
        command: "ticker")
    }
    guard let size = Int(parts[1]), size >= 1 else {
      throw .invalidValue(
        "invalid size '\(parts[1])' in '--buffer \(text)' (must be a whole number, 1 or more)",
        command: "ticker")
    }
    return parts[0] == "newest" ? .newest(size) : .oldest(size)
  }

  /// `newest:1024`, as typed and as echoed in `start`.
  package var description: String {
    switch self {
    case .newest(let size): "newest:\(size)"
    case .oldest(let size): "oldest:\(size)"
    case .unbounded: "unbounded"
    }
  }

  /// The `AsyncStream` policy that implements it.
  package var streamPolicy: AsyncStream<LivePrice>.Continuation.BufferingPolicy {
    switch self {
    case .newest(let size): .bufferingNewest(size)
    case .oldest(let size): .bufferingOldest(size)
    case .unbounded: .unbounded
    }
  }
}
