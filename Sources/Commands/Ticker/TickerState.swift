import LoadctlCore

/// What the ticker has shown: the tally of every tick, the ticks the last batch added, and the
/// drops reported so far.
package struct TickerState: ReportableState, Equatable {
  package var tally = TickerTally()
  /// The ticks the last ``TickerAction/prices(_:dropped:)`` added, in order.
  package var ticks: [TickerTally.Tick] = []
  /// The values the feed's buffer had dropped in all, as last reported.
  package var dropped = 0

  package init() {}

  package var snapshot: JSONValue {
    .object([("state", "ticking"), ("ticks", .int(tally.count)), ("dropped", .int(dropped))])
  }

  package var summary: String { "ticking(\(tally.count) ticks)" }
}

/// What enters the ticker: the prices its feed had ready, as one batch.
package enum TickerAction: ReportableAction, Equatable {
  /// Prices in the order they came, and how many values the feed's buffer had dropped in all
  /// when the first of them was taken.
  case prices([Double], dropped: Int)

  package var name: String { "prices" }

  package var fields: [(String, JSONValue)] {
    switch self {
    case .prices(let prices, let dropped):
      [("count", .int(prices.count)), ("dropped", .int(dropped))]
    }
  }
}
