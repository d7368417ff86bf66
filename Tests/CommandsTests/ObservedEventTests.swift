import LoadctlCore
import Testing

@testable import LoadctlCommands

/// What `--trace`, `--timeline` and the spinner learn from events, and what the trace makes of it.
@Suite struct ObservedEventTests {
  @Test func aTransitionBetweenNamedStatesIsNamedByThem() {
    let from: JSONValue = .object([("state", "idle")])
    let to: JSONValue = .object([("state", "loading"), ("attempt", 1)])
    #expect(
      ObservedEvent.transition("load", from: from, to: to) == .instant("load: idle → loading"))
  }

  @Test func aTransitionOfStatesWithoutACaseIsNamedByItsAction() {
    let count: JSONValue = .object([("count", 1)])
    #expect(ObservedEvent.transition("increment", from: count, to: count) == .instant("increment"))
  }

  @Test func theRecorderOpensAndClosesSpansBySerialAndKeepsPoints() {
    let recorder = TraceRecorder()
    recorder.observe(
      .effectStarted(serial: 1, label: "fetch", track: "fetch"), args: [("effect", "fetch")],
      at: .milliseconds(1))
    recorder.observe(
      .effectStarted(serial: 2, label: "backoff", track: "retry"), args: [], at: .milliseconds(2))
    recorder.observe(.instant("load: idle → loading"), args: [], at: .milliseconds(3))
    recorder.observe(
      .effectFinished(serial: 1, outcome: .cancelled), args: [], at: .milliseconds(4))
    recorder.observe(.effectFinished(serial: 9, outcome: .finished), args: [], at: .milliseconds(5))
    let (slices, tracks, end) = recorder.finish(at: .milliseconds(6))
    #expect(tracks == ["effect fetch", "effect retry"])
    #expect(slices.map(\.name) == ["fetch#1", "backoff#2"])
    #expect(slices.map(\.outcome) == ["cancelled", "unfinished"])
    #expect(slices.map(\.end) == [.milliseconds(4), .milliseconds(6)])
    #expect(end == .milliseconds(6))
    #expect(recorder.chromeTrace(at: end).contains(#""name":"load: idle → loading""#))
  }

  /// Past its limit the recorder keeps no more effect slices, sleep slices or points, each kind
  /// counted apart, and the trace says how many it dropped: a long run's trace stays bounded in
  /// memory (it kept every slice, 1.27 GB for a 4 h timer at 10 ms), and a timer's one effect,
  /// which ends after all its sleeps, is still kept.
  @Test func theRecorderKeepsAtMostItsLimitOfEachKind() throws {
    let timer = TraceRecorder(limit: 3)
    timer.observe(.effectStarted(serial: 1, label: "timer", track: "timer"), args: [], at: .zero)
    for tick in 1...9 {
      let time = Duration.milliseconds(tick)
      timer.sleep(from: time - .milliseconds(1), to: time, cancelled: false, effect: nil)
      if tick <= 5 { timer.observe(.instant("tick"), args: [], at: time) }
    }
    timer.observe(
      .effectFinished(serial: 1, outcome: .cancelled), args: [], at: .milliseconds(10))
    let trace = try JSONParser.parse(timer.chromeTrace(at: .milliseconds(10)))
    guard case .array(let events) = trace["traceEvents"] else {
      Issue.record("no traceEvents")
      return
    }
    #expect(events.filter { $0["ph"] == "X" && $0["cat"] == "effect" }.count == 1)
    #expect(events.filter { $0["ph"] == "X" && $0["cat"] == "sleep" }.count == 3)
    #expect(events.filter { $0["ph"] == "i" }.count == 3)
    #expect(trace["otherData"]?["dropped_slices"] == 6)
    #expect(trace["otherData"]?["dropped_instant_events"] == 2)

    let effects = TraceRecorder(limit: 3)
    for serial in 1...5 {
      let time = Duration.milliseconds(serial)
      effects.observe(
        .effectStarted(serial: serial, label: "load", track: "load"), args: [], at: time)
      effects.observe(.effectFinished(serial: serial, outcome: .finished), args: [], at: time)
    }
    let (slices, _, _) = effects.finish(at: .milliseconds(6))
    #expect(slices.map(\.name) == ["load#1", "load#2", "load#3"])
  }

  @Test func theSpinnerCountsOnlyLoadingEffects() {
    let spinner = Spinner(isLoading: { $0 == "fetch" }, columns: { 80 }, write: { _ in })
    spinner.observe(.effectStarted(serial: 1, label: "timer", track: "timer"))
    #expect(spinner.inFlight == 0)
    spinner.observe(.effectStarted(serial: 2, label: "fetch", track: "fetch"))
    #expect(spinner.inFlight == 1)
    spinner.observe(.effectFinished(serial: 2, outcome: .finished))
    #expect(spinner.inFlight == 0)
  }
}
