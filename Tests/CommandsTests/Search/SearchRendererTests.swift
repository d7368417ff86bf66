import Testing

@testable import LoadctlCommands
@testable import LoadctlCore

/// How the search renderer turns request effects into `request_*` events and counts.
@Suite struct SearchRendererTests {
  private let request = EffectInfo(
    serial: 2, id: "search", policy: .latest, name: SearchFlow.requestName,
    detail: EffectDetail(SearchRequest(query: "sw", revision: 1)))

  /// Renders a request for "sw" that starts and answers, then ends with `outcome`.
  private func render(answer: Result<SearchHits, LoadFailure>?, outcome: EffectOutcome) -> (
    [String], SearchCounts
  ) {
    let clock = VirtualClock()
    let capture = CapturedTickerOutput(clock: clock)
    let renderer = SearchRenderer(output: capture.output, elapsed: { .zero })
    var searching = SearchState()
    searching.query = "sw"
    searching.revision = 1
    searching.phase = .searching(query: "sw")
    renderer.render(
      .transition(
        action: .debounceElapsed(query: "sw", revision: 1), from: SearchState(), to: searching,
        effect: nil))
    renderer.render(.effectStarted(request))
    if let answer {
      var answered = searching
      answered.phase =
        switch answer {
        case .success(let hits): .results(query: "sw", hits: hits)
        case .failure(let failure): .failed(query: "sw", message: failure.message)
        }
      renderer.render(
        .transition(
          action: .response(query: "sw", revision: 1, result: answer), from: searching,
          to: answered, effect: request))
    }
    renderer.render(.effectFinished(request, outcome))
    let requests = capture.describe(["ok", "message"]).filter { $0.hasPrefix("request_") }
    return (requests.map { $0.replacing(" @0", with: "") }, renderer.counts)
  }

  /// The run stopped between the request's response and the end of its effect: the request
  /// had finished, it was not cancelled.
  @Test func aRequestCancelledAfterItsResponseWasAppliedCountsAsFinished() {
    let hits = SearchHits(items: ["swap"], total: 1)
    let (events, counts) = render(answer: .success(hits), outcome: .cancelled)
    #expect(events == ["request_started", "request_finished ok=true"])
    #expect(counts.cancelled == 0)
    #expect(counts.finished == 1)
  }

  @Test func aFailureAnsweredBeforeTheCancelIsReportedAsTheFailure() {
    let (events, counts) = render(answer: .failure(LoadFailure("HTTP 503")), outcome: .cancelled)
    #expect(events == ["request_started", "request_finished ok=false message=HTTP 503"])
    #expect(counts.finished == 1)
  }

  @Test func aRequestCancelledBeforeItsResponseIsCancelled() {
    let (events, counts) = render(answer: nil, outcome: .cancelled)
    #expect(events == ["request_started", "request_cancelled"])
    #expect(counts.cancelled == 1)
    #expect(counts.finished == 0)
  }

  /// Each `request_*` event names the request its effect carries, whatever the transitions
  /// before it said: here a request queued behind another starts after a transition to a newer
  /// query, and one that never started gets no event at all.
  @Test func aRequestIsTheOneItsEffectCarries() {
    let capture = CapturedTickerOutput(clock: VirtualClock())
    let renderer = SearchRenderer(output: capture.output, elapsed: { .zero })
    func info(_ serial: Int, _ query: String, _ revision: Int) -> EffectInfo {
      EffectInfo(
        serial: serial, id: "search", policy: .latest, name: SearchFlow.requestName,
        detail: EffectDetail(SearchRequest(query: query, revision: revision)))
    }
    var searching = SearchState()
    searching.query = "swift"
    searching.revision = 3
    searching.phase = .searching(query: "swift")
    renderer.render(.effectQueued(info(4, "sw", 2)))
    renderer.render(
      .transition(
        action: .queryChanged("swift"), from: SearchState(), to: searching, effect: nil))
    renderer.render(.effectQueued(info(5, "swift", 3)))
    renderer.render(.effectFinished(info(5, "swift", 3), .cancelled))
    renderer.render(.effectStarted(info(4, "sw", 2)))
    renderer.render(.effectFinished(info(4, "sw", 2), .finished))
    let requests = capture.describe(["query", "revision", "serial", "ok"]).filter {
      $0.hasPrefix("request_")
    }
    #expect(
      requests.map { $0.replacing(" @0", with: "") } == [
        "request_started query=sw revision=2 serial=4",
        "request_finished query=sw revision=2 serial=4 ok=true",
      ])
    #expect(renderer.counts == SearchCounts(started: 1, cancelled: 0, finished: 1, stale: 0))
  }
}
