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
