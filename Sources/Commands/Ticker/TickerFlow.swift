import LoadctlCore
import Synchronization

/// The ticker flow: the SwiftUI `Ticker` view pattern, whose `for await` prints each price as it comes.
///
/// This is the consumer: a plain loop over a ``PriceReader`` that records each price in a
/// ``TickerTally`` and prints a `tick` through ``EventOutput``. A pull source is iterated
/// directly; a live source runs as the producer of a ``LivePriceFeed``. Ticks do not go through
/// ``Store``: an action and a transition per price would cap the feed far below what the output
/// can take. The loop runs in the runtime's task tree, never on the main actor.
///
/// Output is flushed when the loop is about to wait (``PriceReader/mayWait``), and otherwise by
/// the writer once its buffer is full: at one tick per second every line reaches a pipe when it
/// happens, at full speed there is no flush per line. When the loop ends the source is stopped,
/// then `producer_stopped` is printed: nothing can be produced after it.
package struct TickerFlow: Sendable {
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

  /// What a live feed does with values the consumer has not taken yet.
  package let buffer: TickerBuffer
  /// Stop after this many ticks; `nil` runs until the source ends or the run is cancelled.
  package let count: Int?

  package init(buffer: TickerBuffer, count: Int?) {
    self.buffer = buffer
    self.count = count
  }

  /// Shows the prices of a pull source and prints everything on `output`.
  package func run(pulling source: some PricePull, output: EventOutput) async -> FlowEnd {
    var reader = source
    let (end, tally) = await consume(&reader, output: output)
    let report = PriceFeedReport(
      sourceEnd: end == .streamEnded ? .sourceFinished : .stopped, produced: reader.produced,
      dropped: 0)
    return finish(end, tally, report, output: output)
  }

  /// Runs a live source through a ``LivePriceFeed`` and prints everything on `output`.
  ///
  /// - Parameter reportFailure: Told why the source failed, if it did and the consumer was still
  ///   reading (right after `producer_stopped`): the command puts it on stderr.
  /// - Returns: A failed end when the source failed before the consumer was done; a failure
  ///   after `--count` was reached or the run was cancelled is not the feed's.
  package func run(
    live source: some LivePriceSource, output: EventOutput,
    reportFailure: (String) -> Void = { _ in }
  ) async -> FlowEnd {
    let ((end, tally), report) = await LivePriceFeed(buffer: buffer).run(source) { reader in
      await consume(&reader, output: output)
    }
    return finish(end, tally, report, output: output, reportFailure: reportFailure)
  }

  /// How the consumer loop ended.
  enum ConsumerEnd {
    case countReached
    case cancelled
    case streamEnded
  }

  /// Prints `producer_stopped` (with the source's failure as `message`) and makes the `end`
  /// event's summary.
  private func finish(
    _ end: ConsumerEnd, _ tally: TickerTally, _ report: PriceFeedReport, output: EventOutput,
    reportFailure: (String) -> Void = { _ in }
  ) -> FlowEnd {
    var failure: String?
    let reason: StopReason
    switch (end, report.sourceEnd) {
    case (.countReached, _): reason = .consumerFinished
    case (.cancelled, _), (.streamEnded, .stopped): reason = .cancelled
    case (.streamEnded, .sourceFinished): reason = .sourceFinished
    case (.streamEnded, .failed(let message)):
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
    if let failure { reportFailure(failure) }
    return FlowEnd(
      status: failure == nil ? .completed : .failed,
      fields: [("summary", tally.summary(dropped: report.dropped))],
      summary: TickerFormat.summary(tally, dropped: report.dropped))
  }

  /// Shows prices until `count`, the end of the source, or cancellation.
  ///
  /// Once the task is cancelled no more prices are shown, even those already buffered: one
  /// cancellation handler around the loop sets a flag it checks for each price.
  private func consume(
    _ reader: inout some PriceReader, output: EventOutput
  ) async -> (ConsumerEnd, TickerTally) {
    let cancelled = CancellationFlag()
    var tally = TickerTally()
    var reportedDrops = 0
    defer { output.flush() }
    return await withTaskCancellationHandler {
      while !cancelled.isSet, let price = await reader.next(), !cancelled.isSet {
        let dropped = reader.dropped
        if dropped != reportedDrops {
          reportDrops(dropped - reportedDrops, total: dropped, output: output)
          reportedDrops = dropped
        }
        let tick = tally.record(price)
        output.emit(
          "tick", Self.fields(tick), text: TickerFormat.tick(tick, style: output.style),
          flush: false)
        if tick.n == count { return (.countReached, tally) }
        if reader.mayWait { output.flush() }
        // A pulled source never suspends; the run's other tasks (the shutdown watcher above all)
        // share one executor, so give them a turn now and then.
        if tick.n % 256 == 0 { await Task.yield() }
      }
      return (cancelled.isSet || Task.isCancelled ? .cancelled : .streamEnded, tally)
    } onCancel: {
      cancelled.set()
    }
  }

  /// A `tick` event's fields.
  static func fields(_ tick: TickerTally.Tick) -> [(String, JSONValue)] {
    [
      ("n", .int(tick.n)), ("price", .double(tick.price)),
      ("change", tick.change.map(JSONValue.double) ?? .null),
    ]
  }

  private func reportDrops(_ count: Int, total: Int, output: EventOutput) {
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

/// Whether a task was cancelled, as a flag its loop can check for each value (an atomic load).
final class CancellationFlag: Sendable {
  private let value = Atomic<Bool>(false)

  var isSet: Bool { value.load(ordering: .acquiring) }

  func set() { value.store(true, ordering: .releasing) }
}
