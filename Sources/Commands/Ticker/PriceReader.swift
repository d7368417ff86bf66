/// The consumer's side of a price feed: what the ticker's input takes prices from, whatever the
/// source.
///
/// Two shapes implement it. A pull source (``PricePull``: the random feed at `--interval 0`, a
/// regular file, any input on virtual time) makes or reads each price when it is asked for one.
/// A live source (``LivePriceFeed``: the timer, a pipe, a terminal, a command) produces on its
/// own schedule into an `AsyncStream`, and its reader takes from the stream.
package protocol PriceReader {
  /// The next price, waiting for it (a clock, an input, a producer); `nil` when the source has
  /// no more or the feed was stopped.
  nonisolated(nonsending) mutating func next() async -> Double?

  /// The next price when it is already there: `nil` when taking it would wait, or when there is
  /// none. The ticker takes what is there as one batch this way.
  nonisolated(nonsending) mutating func nextReady() async -> Double?

  /// Values the buffer policy had discarded when the last price was taken.
  var dropped: Int { get }
}

/// A source the consumer pulls from directly: no producer task and no buffer, so nothing is
/// dropped and the consumer's pace is the source's.
package protocol PricePull: PriceReader {}

extension PricePull {
  package var dropped: Int { 0 }
}

/// How a source ended.
package enum PriceFeedEnd: Sendable, Equatable {
  /// The source has no more values (end of input).
  case sourceFinished
  /// It was stopped: its consumer went away or its task was cancelled.
  case stopped
  /// The source broke off and cannot go on, e.g. an `--exec` command exited non-zero: why.
  case failed(String)
}

/// What a feed's source did, reported once it has stopped.
package struct PriceFeedReport: Sendable, Equatable {
  package var sourceEnd: PriceFeedEnd
  /// Values made or read (a live source: offered to the stream).
  package var produced: Int
  /// Values the buffer policy discarded.
  package var dropped: Int

  package init(sourceEnd: PriceFeedEnd, produced: Int, dropped: Int) {
    self.sourceEnd = sourceEnd
    self.produced = produced
    self.dropped = dropped
  }
}
