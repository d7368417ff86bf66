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

  /// Past its limit the recorder keeps no more slices (effects and sleeps) nor points, and the
  /// trace says how many it dropped: a long run's trace stays bounded in memory (it kept every
  /// slice, 1.27 GB for a 4 h timer at 10 ms).
  @Test func theRecorderKeepsAtMostItsLimitOfSlicesAndPoints() throws {
    let recorder = TraceRecorder(limit: 3)
    for serial in 1...5 {
      let time = Duration.milliseconds(serial)
      recorder.observe(
        .effectStarted(serial: serial, label: "tick", track: "tick"), args: [], at: time)
      recorder.sleep(from: time, to: time + .microseconds(500), cancelled: false, effect: nil)
      recorder.observe(.effectFinished(serial: serial, outcome: .finished), args: [], at: time)
      recorder.observe(.instant("tick"), args: [], at: time)
    }
    recorder.observe(
      .effectStarted(serial: 6, label: "tick", track: "tick"), args: [], at: .milliseconds(6))
    let trace = try JSONParser.parse(recorder.chromeTrace(at: .milliseconds(7)))
    guard case .array(let events) = trace["traceEvents"] else {
      Issue.record("no traceEvents")
      return
    }
    #expect(events.filter { $0["ph"] == "X" }.count == 3)
    #expect(events.filter { $0["ph"] == "i" }.count == 3)
    // 5 effects, 5 sleeps and the unfinished 6th: 11 slices, 3 kept; 5 points, 3 kept.
    #expect(trace["otherData"]?["dropped_slices"] == 8)
    #expect(trace["otherData"]?["dropped_instant_events"] == 2)
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
