import LoadctlCore

/// Prints the ticker's store events: a `dropped` event when the feed's buffer dropped values,
/// then a `tick` per price the batch added. Nothing else of the store is shown.
package struct TickerRenderer: FlowRendering {
  let output: EventOutput
  let buffer: TickerBuffer
  /// Puts a source's failure on stderr.
  let reportFailure: @Sendable (String) -> Void

  package func render(_ event: StoreEvent<TickerState, TickerAction>) {
    guard case .transition(_, let from, let to, _) = event else { return }
    if to.dropped != from.dropped {
      reportDrops(to.dropped - from.dropped, total: to.dropped)
    }
    for tick in to.ticks {
      output.emit(
        "tick", Self.fields(tick), text: TickerFormat.tick(tick, style: output.style),
        flush: false)
    }
  }

  /// A `tick` event's fields.
  static func fields(_ tick: TickerTally.Tick) -> [(String, JSONValue)] {
    [
      ("n", .int(tick.n)), ("price", .double(tick.price)),
      ("change", tick.change.map(JSONValue.double) ?? .null),
    ]
  }

  private func reportDrops(_ count: Int, total: Int) {
    output.emit(
      "dropped",
      [
        ("count", .int(count)), ("total", .int(total)),
        ("buffer", .string(buffer.description)),
      ],
      text: output.style.yellow(
        "dropped \(count) value\(count == 1 ? "" : "s") (buffer \(buffer) full, \(total) in all)"
      ),
      flush: false)
  }
}
