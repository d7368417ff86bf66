import LoadctlCore

/// The ticker flow: the SwiftUI `Ticker` view pattern, whose `for await` shows each price as it
/// comes, run by ``FlowRunner`` like every flow.
///
/// Its input is its own feed (``RunnableFlow/withFeed(context:_:)``): a pull source is read by
/// the store's input task itself; a live source runs as the producer of a ``LivePriceFeed``
/// beside the store, and is stopped, and has returned, before the run ends. Prices enter the
/// store in batches of what the feed had ready (``TickerFeedInput``), and the reducer records
/// each one in a ``TickerTally``; the renderer prints a `tick` per price. When `--count` ticks
/// were shown the run finishes; when the run is cancelled nothing more is shown, even prices
/// already taken. Then `producer_stopped` is printed: nothing can be produced after it.
package struct TickerFlow: RunnableFlow {
  /// Why the consumer stopped, as `producer_stopped` reports it.
  package enum StopReason: String, Sendable, Equatable {
    /// `--count` ticks were shown.
    case consumerFinished = "consumer_finished"
    /// The run was cancelled (Ctrl-C, SIGTERM, stdout closed).
    case cancelled
    /// The source ran dry (end of `--from` input, an `--exec` command that ended well).
    case sourceFinished = "source_finished"
    /// The source broke off (an `--exec` command that exited non-zero or was killed).
    case sourceFailed = "source_failed"
  }

  /// Where the prices come from.
  package enum Source: Sendable {
    /// A source the store's input task reads itself: the feed's input, given `--count` and
    /// where to count what it takes (see ``pull(_:)``).
    case pulled(@Sendable (_ count: Int?, _ taken: FeedTaken) -> AnyInput<TickerAction>)
    /// A source with a producer of its own, whose values a buffer holds for the consumer.
    case live(any LivePriceSource)

    /// A source the store's input task reads itself, made there by `make`.
    package static func pull<Reader: PricePull & SendableMetatype>(
      _ make: @escaping @Sendable () -> Reader
    )
      -> Source
    {
      .pulled { count, taken in
        AnyInput(TickerFeedInput(makeReader: make, count: count, taken: taken))
      }
    }
  }

  /// What a live feed does with values the consumer has not taken yet.
  package let buffer: TickerBuffer
  /// Stop after this many ticks; `nil` runs until the source ends or the run is cancelled.
  package let count: Int?
  package let source: Source

  package init(buffer: TickerBuffer, count: Int?, source: Source) {
    self.buffer = buffer
    self.count = count
    self.source = source
  }

  package var initialState: TickerState { TickerState() }

  package func reduce(_ state: inout TickerState, _ action: TickerAction) -> Effect<TickerAction> {
    switch action {
    case .prices(let prices, let dropped):
      state.dropped = dropped
      state.ticks.removeAll(keepingCapacity: true)
      for price in prices {
        if let count, state.tally.count >= count { break }
        state.ticks.append(state.tally.record(price))
      }
      return state.tally.count == count ? .finishRun : .none
    }
  }

  /// Lines never reach the ticker: its input is its feed.
  package func action(line: String) -> Result<TickerAction, LineProblem> {
    .failure(LineProblem("the ticker reads prices from its feed"))
  }

  package func withFeed<Result: Sendable>(
    context: RunContext, _ body: (AnyInput<TickerAction>?) async -> Result
  ) async -> (Result, PriceFeedReport) {
    let taken = FeedTaken()
    switch source {
    case .pulled(let input):
      let result = await body(input(count, taken))
      let end: PriceFeedEnd = taken.readerEnded ? .sourceFinished : .stopped
      return (result, PriceFeedReport(sourceEnd: end, produced: taken.value, dropped: 0))
    case .live(let live):
      let (result, report) = await LivePriceFeed(buffer: buffer).run(live) { prices in
        let input = TickerFeedInput(
          makeReader: { prices.makeReader() }, count: count, taken: taken)
        return await body(AnyInput(input))
      }
      return (result, report)
    }
  }

  /// `{"end": …, "produced": N, "dropped": N}`, `end` being `source_finished`, `stopped` or
  /// `{"failed": message}`.
  package func recorded(feed report: PriceFeedReport) -> JSONValue? {
    let end: JSONValue =
      switch report.sourceEnd {
      case .sourceFinished: "source_finished"
      case .stopped: "stopped"
      case .failed(let message): .object([("failed", .string(message))])
      }
    return .object([
      ("end", end), ("produced", .int(report.produced)), ("dropped", .int(report.dropped)),
    ])
  }

  package func feed(recorded value: JSONValue?) -> PriceFeedReport? {
    let counts = 0...RecordedFields.maxCount
    guard let value, case .int(let produced)? = value["produced"],
      case .int(let dropped)? = value["dropped"], counts.contains(produced),
      counts.contains(dropped)
    else { return nil }
    let end: PriceFeedEnd
    switch value["end"] {
    case .string("source_finished")?: end = .sourceFinished
    case .string("stopped")?: end = .stopped
    case let failed?:
      guard case .string(let message)? = failed["failed"] else { return nil }
      end = .failed(message)
    case nil: return nil
    }
    return PriceFeedReport(sourceEnd: end, produced: produced, dropped: dropped)
  }

  /// `dropped`: the feed's buffer dropped values.
  package func lint(_ event: StoreEvent<TickerState, TickerAction>) -> LintWarning? {
    guard case .transition(_, let from, let to, _) = event, to.dropped > from.dropped else {
      return nil
    }
    return LintWarning(
      .dropped, subject: "ticker buffer",
      message:
        "the feed's buffer (\(buffer)) dropped \(to.dropped - from.dropped) "
        + "value\(to.dropped - from.dropped == 1 ? "" : "s") (\(to.dropped) in all): the output "
        + "is slower than the feed; read it faster, raise --buffer or slow --interval")
  }

  package func renderer(context: RunContext) -> TickerRenderer {
    TickerRenderer(output: context.output, buffer: buffer, reportFailure: { context.error($0) })
  }

  /// Prints `producer_stopped` (with the source's failure as `message`; the failure also goes
  /// to stderr) and makes the `end` event's summary: a failed end when the source failed before
  /// the consumer was done; a failure after `--count` was reached or the run was cancelled is
  /// not the feed's.
  package func end(
    _ outcome: FlowOutcome<Self>, renderer: TickerRenderer, output: EventOutput
  ) -> FlowEnd {
    let tally = outcome.state.tally
    let report = outcome.feed
    var failure: String?
    let reason: StopReason
    switch (outcome.reason, report.sourceEnd) {
    case (.finished, _): reason = .consumerFinished
    case (.cancelled, _), (.idle, .stopped): reason = .cancelled
    case (.idle, .sourceFinished): reason = .sourceFinished
    case (.idle, .failed(let message)):
      reason = .sourceFailed
      failure = message
    }
    // Every value produced was shown, dropped, or left unread in the buffer when the consumer
    // stopped (`--count` reached, cancelled).
    let unread = max(0, report.produced - tally.count - report.dropped)
    var fields: [(String, JSONValue)] = [
      ("reason", .string(reason.rawValue)), ("produced", .int(report.produced)),
      ("dropped", .int(report.dropped)), ("unread", .int(unread)),
    ]
    if let failure { fields.append(("message", .string(failure))) }
    output.emit(
      "producer_stopped", fields,
      text: "producer stopped (\(reason.rawValue.replacing("_", with: " "))): "
        + "\(report.produced) produced, \(report.dropped) dropped"
        + (unread > 0 ? ", \(unread) unread" : ""))
    if let failure { renderer.reportFailure(failure) }
    return FlowEnd(
      status: failure == nil ? .completed : .failed,
      fields: [("summary", tally.summary(dropped: report.dropped))],
      summary: TickerFormat.summary(tally, dropped: report.dropped))
  }
}
