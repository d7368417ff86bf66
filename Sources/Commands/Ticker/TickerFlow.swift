import LoadctlCore

/// The ticker flow: the seed's `Ticker` view, whose `for await` prints each price as it comes.
///
/// A ``PriceFeed`` runs the producer; this is the consumer: a plain loop over the stream that
/// records each price in a ``TickerTally`` and prints a `tick` through ``EventOutput``. Ticks do
/// not go through ``Store``: an action and a transition per price would cap the feed far below
/// what the output can take. The loop runs in the runtime's task tree, never on the main actor
/// (a main-actor `for await` delivers ~46k values/s here).
///
/// Output is flushed per burst, not per line: after a tick that left nothing in flight
/// (``PriceFeedReader/caughtUp``), i.e. just before the loop waits for the producer, which may be
/// waiting for its clock. At one tick per second every line reaches a pipe when it happens; at
/// full speed the writer flushes every 64 KiB. When the loop ends the producer is stopped, then
/// `producer_stopped` is printed: nothing can be produced after it.
package struct TickerFlow: Sendable {
  /// Why the consumer stopped, as `producer_stopped` reports it.
  package enum StopReason: String, Sendable, Equatable {
    /// `--count` ticks were shown.
    case consumerFinished = "consumer_finished"
    /// The run was cancelled (Ctrl-C, SIGTERM, stdout closed).
    case cancelled
    /// The source ran dry (end of `--from` input).
    case sourceFinished = "source_finished"
  }

  package let feed: PriceFeed
  /// Stop after this many ticks; `nil` runs until the source ends or the run is cancelled.
  package let count: Int?

  package init(feed: PriceFeed, count: Int?) {
    self.feed = feed
    self.count = count
  }

  /// Runs `source` through the feed and prints everything on `output`.
  package func run(_ source: some PriceFeedSource, output: EventOutput) async -> FlowEnd {
    let ((end, tally), report) = await feed.run(source, limit: count) { reader in
      await consume(&reader, output: output)
    }
    let reason: StopReason =
      switch end {
      case .countReached: .consumerFinished
      case .cancelled: .cancelled
      case .streamEnded: report.sourceEnd == .sourceFinished ? .sourceFinished : .cancelled
      }
    output.emit(
      "producer_stopped",
      [
        ("reason", .string(reason.rawValue)), ("produced", .int(report.produced)),
        ("dropped", .int(report.dropped)),
      ],
      text: "producer stopped (\(reason.rawValue.replacing("_", with: " "))): "
        + "\(report.produced) produced, \(report.dropped) dropped")
    return FlowEnd(
      status: .completed, fields: [("summary", tally.summary(dropped: report.dropped))],
      summary: TickerFormat.summary(tally, dropped: report.dropped))
  }

  /// How the consumer loop ended.
  enum ConsumerEnd {
    case countReached
    case cancelled
    case streamEnded
  }

  private func consume(
    _ reader: inout PriceFeedReader, output: EventOutput
  ) async -> (ConsumerEnd, TickerTally) {
    var tally = TickerTally()
    var reportedDrops = 0
    defer { output.flush() }
    // Values still buffered when the run is cancelled are not shown: `next()` ends at once.
    while let price = await reader.next() {
      let dropped = reader.dropped
      if dropped != reportedDrops {
        reportDrops(dropped - reportedDrops, total: dropped, output: output)
        reportedDrops = dropped
      }
      let tick = tally.record(price)
      output.emit(
        "tick", fields: { Self.fields(tick) }, json: { Self.writeFields(tick, to: &$0) },
        text: { TickerFormat.tick(tick, style: output.style) }, flush: false)
      if tick.n == count { return (.countReached, tally) }
      // Caught up: the next read waits (for the producer, its clock or its input), so the
      // burst ends here.
      if reader.caughtUp { output.flush() }
    }
    return (Task.isCancelled ? .cancelled : .streamEnded, tally)
  }

  /// A `tick` event's fields.
  static func fields(_ tick: TickerTally.Tick) -> [(String, JSONValue)] {
    [
      ("n", .int(tick.n)), ("price", .double(tick.price)),
      ("change", tick.change.map(JSONValue.double) ?? .null),
    ]
  }

  /// ``fields(_:)`` in JSON, `,"n":3,"price":101.27,"change":0.84`, written straight as bytes.
  static func writeFields(_ tick: TickerTally.Tick, to line: inout [UInt8]) {
    let capacity = 24 + JSONTokens.maximumIntLength + 2 * JSONTokens.maximumNumberLength
    JSONTokens.append(to: &line, capacity: capacity) { tokens in
      tokens.write(",\"n\":")
      tokens.write(tick.n)
      tokens.write(",\"price\":")
      tokens.write(tick.price)
      tokens.write(",\"change\":")
      if let change = tick.change {
        tokens.write(change)
      } else {
        tokens.write("null")
      }
    }
  }

  private func reportDrops(_ count: Int, total: Int, output: EventOutput) {
    output.emit(
      "dropped",
      [
        ("count", .int(count)), ("total", .int(total)),
        ("buffer", .string(feed.buffer.description)),
      ],
      text: output.style.yellow(
        "dropped \(count) value\(count == 1 ? "" : "s") (buffer \(feed.buffer) full, \(total) in all)"
      ),
      flush: false)
  }
}
