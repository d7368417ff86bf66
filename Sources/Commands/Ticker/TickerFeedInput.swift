import Synchronization

/// The ticker's input: a price reader's prices as ``TickerAction/prices(_:dropped:)`` batches.
///
/// A batch is one price, waited for, and then what is already there (``PriceReader/nextReady()``),
/// up to ``batchLimit``: the store applies one action per batch, not per price, so a feed that
/// always has prices ready costs one hand-over per thousand ticks, and a feed at one price a
/// second shows each price when it comes. A batch never holds more than `--count` still needs,
/// and ends where the reader's drop count changes, so every drop is reported before the tick
/// that revealed it. The reader is made in the task that iterates (the store's input task).
struct TickerFeedInput<Reader: PriceReader>: AsyncSequence, Sendable {
  typealias Element = TickerAction
  typealias Failure = Never

  /// The most prices in one batch.
  static var batchLimit: Int { 1024 }

  let makeReader: @Sendable () -> Reader
  /// `--count`: no more prices are taken once this many were.
  let count: Int?
  /// What was taken, and whether the reader ran dry, for the feed's report.
  let taken: FeedTaken

  func makeAsyncIterator() -> Iterator {
    Iterator(reader: makeReader(), remaining: count ?? .max, taken: taken)
  }

  struct Iterator: AsyncIteratorProtocol {
    var reader: Reader
    var remaining: Int
    let taken: FeedTaken
    /// A price taken whose drop count differs from its batch's: the next batch's first.
    var pending: (price: Double, dropped: Int)?

    mutating func next() async -> TickerAction? { await next(isolation: #isolation) }

    /// The next batch, on the caller's executor (the store's input task reads it there).
    mutating func next(isolation actor: isolated (any Actor)?) async -> TickerAction? {
      var took = 0
      defer {
        remaining -= took
        taken.add(took)
      }
      let first: (price: Double, dropped: Int)
      if let pending {
        first = pending
        self.pending = nil
      } else {
        guard remaining > 0 else { return nil }
        guard let price = await reader.next() else {
          taken.sourceEnded()
          return nil
        }
        took += 1
        first = (price, reader.dropped)
      }
      var prices = [first.price]
      while prices.count < TickerFeedInput.batchLimit, took < remaining,
        let price = await reader.nextReady()
      {
        took += 1
        guard reader.dropped == first.dropped else {
          pending = (price, reader.dropped)
          break
        }
        prices.append(price)
      }
      return .prices(prices, dropped: first.dropped)
    }
  }
}

/// How many prices a feed's input took, and whether its reader ran dry: a pull source's report.
package final class FeedTaken: Sendable {
  private let count = Atomic<Int>(0)
  private let ended = Atomic<Bool>(false)

  var value: Int { count.load(ordering: .relaxed) }
  var readerEnded: Bool { ended.load(ordering: .relaxed) }

  func add(_ prices: Int) { count.add(prices, ordering: .relaxed) }
  func sourceEnded() { ended.store(true, ordering: .relaxed) }
}
