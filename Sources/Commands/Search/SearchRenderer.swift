import LoadctlCore

/// How many requests a run started, cancelled and finished, and how many stale responses it showed.
package struct SearchCounts: Sendable, Equatable {
  package var started = 0
  package var cancelled = 0
  package var finished = 0
  package var stale = 0

  /// The `requests` object of the `end` event.
  package var requests: JSONValue {
    .object([
      ("started", .int(started)), ("cancelled", .int(cancelled)), ("finished", .int(finished)),
    ])
  }
}

/// Prints the search flow's events: transitions (a response says whether it is `stale`), every
/// effect's lifetime as ``StoreRenderer`` does (traces, timelines and the spinner read those), and
/// after a request effect's `effect_started` / `effect_finished` a `request_started`,
/// `request_cancelled` or `request_finished` event that names the request's query.
///
/// Each request effect carries its ``SearchRequest`` in its events (``EffectInfo/detail``), so the
/// renderer reads the request there. A request cancelled while still queued never started, so it
/// gets no `request_*` event. The renderer only observes; its counts are for the `end` event.
package final class SearchRenderer: Sendable {
  private struct Flight {
    var startedAt: Duration
    /// What the request's response said, once the store applied it.
    var answer: EffectOutcome?
  }

  private struct Book {
    var flights: [Int: Flight] = [:]
    var counts = SearchCounts()
  }

  private let output: EventOutput
  private let elapsed: @Sendable () -> Duration
  private let base: StoreRenderer<SearchState, SearchAction>
  private let book = Locked(Book())
  private let picker: SearchPicker?
  /// Whether text lines are printed: not while a picker's view shows the run.
  private let prints: Bool

  /// - Parameters:
  ///   - output: Where events go.
  ///   - elapsed: Time since the run started, for each request's `duration_ms`.
  ///   - picker: The picker that shows each state and count; while its view is on the
  ///     terminal, text mode prints nothing (stdout is for the pick).
  package init(
    output: EventOutput, elapsed: @escaping @Sendable () -> Duration,
    picker: SearchPicker? = nil
  ) {
    self.output = output
    self.elapsed = elapsed
    self.picker = picker
    self.prints = picker?.view != true
    // The debounce effect's lifetime is JSON-only: its restarts are the transitions' story.
    self.base = StoreRenderer(output: output, effectText: { _, _ in nil })
  }

  /// The counts so far.
  package var counts: SearchCounts { book.withLock { $0.counts } }

  /// Prints one event of the store's run.
  package func render(_ event: StoreEvent<SearchState, SearchAction>) {
    switch event {
    case .transition(let action, let from, let to, let info):
      if case .response(_, _, let result) = action, let info { answered(info, result) }
      transition(action, from: from, to: to)
      picker?.show(to)
    case .effectStarted(let info):
      base.render(event)
      if let request = Self.request(info) {
        started(request, info)
        picker?.show(counts)
      }
    case .effectFinished(let info, let outcome):
      base.render(event)
      if let request = Self.request(info) {
        finished(request, info, outcome)
        picker?.show(counts)
      }
    case .ignored(let action, let reason, let state) where !prints:
      output.emit(
        "ignored",
        [("action", .string(action.name))] + action.fields
          + [("reason", .string(reason)), ("state", state.snapshot)], text: nil,
        observed: .instant("\(action.name) ignored"))
    default:
      base.render(event)
    }
  }

  /// The request of a request effect.
  private static func request(_ info: EffectInfo) -> SearchRequest? {
    guard info.name == SearchFlow.requestName else { return nil }
    return info.detail?.value(as: SearchRequest.self)
  }

  private func transition(_ action: SearchAction, from: SearchState, to: SearchState) {
    var stale: Bool?
    if case .response = action { stale = to.stale }
    if stale == true { book.withLock { $0.counts.stale += 1 } }
    var fields: [(String, JSONValue)] = [("action", .string(action.name))] + action.fields
    if let stale { fields.append(("stale", .bool(stale))) }
    let (before, after) = (from.snapshot, to.snapshot)
    fields += [("from", before), ("to", after)]
    output.emit(
      "transition", fields,
      text: prints
        ? transitionText(action, from, to, unchanged: before == after, stale: stale == true)
        : nil,
      observed: .transition(action.name, from: before, to: after))
  }

  private func transitionText(
    _ action: SearchAction, _ from: SearchState, _ to: SearchState, unchanged: Bool, stale: Bool
  ) -> String {
    let style = output.style
    let change =
      unchanged
      ? "\(to.summary) (no change)"
      : "\(from.summary) → \(style.bold(to.summaryWithItems))"
    let text = "\(action.summary)  \(change)"
    return stale ? "\(style.red("STALE"))  \(text)" : text
  }

  /// Prints `request_started` after the effect's own `effect_started`.
  private func started(_ request: SearchRequest, _ info: EffectInfo) {
    let now = elapsed()
    book.withLock { book in
      book.flights[info.serial] = Flight(startedAt: now)
      book.counts.started += 1
    }
    output.emit(
      "request_started", fields(request, info),
      text: prints ? output.style.dim("request \(quoted(request.query)) started") : nil)
  }

  /// Records that the request of effect `info` delivered its response.
  private func answered(_ info: EffectInfo, _ result: Result<SearchHits, LoadFailure>) {
    let answer: EffectOutcome =
      switch result {
      case .success: .finished
      case .failure(let failure): .failed(failure.message)
      }
    book.withLock { $0.flights[info.serial]?.answer = answer }
  }

  /// Prints `request_cancelled` or `request_finished`, unless the request never started.
  ///
  /// A request whose response was already applied has finished, even if its effect is
  /// cancelled before it reports its own end (the run stopped in between): it is reported by
  /// its answer, not as cancelled.
  private func finished(_ request: SearchRequest, _ info: EffectInfo, _ reported: EffectOutcome) {
    let now = elapsed()
    var outcome = reported
    let flight: Flight? = book.withLock { book in
      guard let flight = book.flights.removeValue(forKey: info.serial) else { return nil }
      if let answer = flight.answer { outcome = answer }
      if outcome == .cancelled { book.counts.cancelled += 1 } else { book.counts.finished += 1 }
      return flight
    }
    guard let flight else { return }
    let took = now - flight.startedAt
    let milliseconds = EventOutput.milliseconds(took)
    var fields = fields(request, info) + [("duration_ms", .double(milliseconds))]
    let what = "request \(quoted(request.query))"
    let ms = "\(Int(milliseconds.rounded()))ms"
    let text: (String) -> String? = { [prints, output] in prints ? output.style.dim($0) : nil }
    switch outcome {
    case .cancelled:
      output.emit("request_cancelled", fields, text: text("\(what) cancelled after \(ms)"))
    case .finished:
      fields.append(("ok", true))
      output.emit("request_finished", fields, text: text("\(what) finished in \(ms)"))
    case .failed(let message):
      fields += [("ok", false), ("message", .string(message))]
      output.emit("request_finished", fields, text: text("\(what) failed after \(ms)"))
    }
  }

  private func fields(_ request: SearchRequest, _ info: EffectInfo) -> [(String, JSONValue)] {
    [
      ("query", .string(request.query)), ("revision", .int(request.revision)),
      ("serial", .int(info.serial)),
    ]
  }
}
