import Foundation
import LoadctlCommands
import LoadctlCore
import Testing

/// Runs `loadctl timer` on a test clock, writing its output to a temporary file.
private final class TimerHarness: Sendable {
  let clock = VirtualClock()
  let path: String
  let fd: Int32
  let context: RunContext

  init(json: Bool = false) {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("timer-run-\(UUID().uuidString).txt").path
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let clock = clock
    let elapsed: @Sendable () -> Duration = { clock.now.offset }
    let output = EventOutput(
      command: "timer", json: json, quiet: false, style: Style(enabled: false),
      writer: OutputWriter(fileDescriptor: fd), elapsed: elapsed)
    context = RunContext(
      output: output, clock: clock, elapsed: elapsed,
      errors: OutputWriter(fileDescriptor: fd))
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// Runs the flow until nothing sleeps on the clock any more, and returns its end.
  func run(
    interval: Duration = .seconds(1), ticks: Int? = nil, duration: Duration? = nil,
    paused: Bool = false, lines: [String]? = nil
  ) async -> FlowEnd {
    let flow = TimerFlow(clock: clock, interval: interval, tickLimit: ticks)
    let context = context
    let task = clock.launch {
      let timer = TimerRun(flow: flow, paused: paused, duration: duration)
      let keys = TimerRun.wantsKeys(tickLimit: ticks, duration: duration, mode: context.mode)
      return await FlowRunner.run(
        timer, lines: lines.map(LineSource.lines), keys: keys ? .unlessLines : .never,
        context: context)
    }
    clock.run(limit: 10_000)
    return await task.value
  }

  /// Everything written so far, one entry per line.
  var lines: [String] {
    context.output.flush()
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }
}

@Suite struct TimerRunTests {
  /// A replayed tick can say it missed any number of deadlines: the summary's count and the
  /// `late` lint's lateness saturate instead of trapping.
  @Test func absurdlyLateTicksSaturate() {
    var stats = TimerRun.Stats()
    stats.record(TimerAction.Tick(missed: .max))
    stats.record(TimerAction.Tick(missed: 1))
    #expect(stats.missed == .max)
    #expect(stats.received == 2)
    let huge = TimerAction.Tick(missed: 1 << 53, lateness: .seconds(1))
    #expect(TimerRun.lateness(of: huge, interval: .seconds(18_000)) == .nanoseconds(Int64.max))
    let late = TimerAction.Tick(missed: 2, lateness: .milliseconds(5))
    #expect(TimerRun.lateness(of: late, interval: .seconds(1)) == .milliseconds(2005))
  }

  @Test func textShowsTheDialAndOnlyTheChangedFields() async {
    let harness = TimerHarness()
    let end = await harness.run(ticks: 3)
    #expect(
      harness.lines == [
        "  0.000s  timer  ▶ 00:00 ▕               ▏  start  isTimerActive: false → true",
        "  0.000s  timer  timer#1 started (every 1s)",
        "  1.000s  timer  ▶ 00:01 ▕▎              ▏  tick  ticks: 0 → 1",
        "  2.000s  timer  ▶ 00:02 ▕▌              ▏  tick  ticks: 1 → 2",
        "  3.000s  timer  ■ 00:03 ▕▊              ▏  tick  isTimerActive: true → false, ticks: 2 → 3",
        "  3.000s  timer  timer#1 cancelled",
      ])
    #expect(end.summary == "■ 00:03 ▕▊              ▏  3 ticks, final tick 0.0 ms late")
    #expect(
      JSONValue.object(end.fields).serialized
        == #"{"state":{"is_timer_active":false,"ticks":3},"ended_by":"ticks","ticks_received":3,"#
        + #""missed_ticks":0,"final_lateness_ms":0,"max_lateness_ms":0}"#)
  }

  @Test func togglingTwiceInOneTurnWaitsForTheOldTimerToEnd() async {
    let harness = TimerHarness()
    _ = await harness.run(ticks: 1, lines: ["toggle", "toggle"])
    #expect(
      harness.lines == [
        "  0.000s  timer  ▶ 00:00 ▕               ▏  start  isTimerActive: false → true",
        "  0.000s  timer  timer#1 started (every 1s)",
        "  0.000s  timer  ■ 00:00 ▕               ▏  toggle  isTimerActive: true → false",
        "  0.000s  timer  ▶ 00:00 ▕               ▏  toggle  isTimerActive: false → true",
        "  0.000s  timer  timer#2 waits for the old timer to end (latest policy)",
        "  0.000s  timer  timer#1 cancelled",
        "  0.000s  timer  timer#2 started (every 1s)",
        "  1.000s  timer  ■ 00:01 ▕▎              ▏  tick  isTimerActive: true → false, ticks: 0 → 1",
        "  1.000s  timer  timer#2 cancelled",
      ])
  }

  @Test func theDurationStopsTheTimerLikeCtrlC() async {
    let harness = TimerHarness(json: true)
    let end = await harness.run(interval: .milliseconds(250), duration: .seconds(1))
    let events = harness.lines.compactMap { line in
      line.firstRange(of: #""event":""#).map { line[$0.upperBound...].prefix { $0 != "\"" } }
    }
    #expect(
      events == [
        "transition", "effect_started", "transition", "transition", "transition", "transition",
        "transition", "effect_finished",
      ])
    #expect(harness.lines.last?.contains(#""action":"stop""#) == false)
    #expect(harness.lines.dropLast().last?.contains(#""action":"stop""#) == true)
    #expect(end.fields.first { $0.0 == "ended_by" }?.1 == "duration")
    #expect(end.fields.first { $0.0 == "state" }?.1.serialized.contains(#""ticks":4"#) == true)
    #expect(harness.clock.now.offset == .milliseconds(1010))
  }

  @Test func inputThatStopsTheTimerEndsTheRun() async {
    let harness = TimerHarness()
    let end = await harness.run(lines: ["+2500ms stop", "+1s reset"])
    #expect(end.fields.first { $0.0 == "ended_by" }?.1 == "input")
    #expect(end.summary == "■ 00:00 ▕               ▏  0 ticks")
    #expect(harness.clock.now.offset == .milliseconds(3500))
  }

  @Test func pausedWaitsForInput() async {
    let harness = TimerHarness()
    let end = await harness.run(ticks: 1, paused: true, lines: ["+5s start"])
    #expect(
      harness.lines.first
        == "  5.000s  timer  ▶ 00:00 ▕               ▏  start  isTimerActive: false → true")
    #expect(end.fields.first { $0.0 == "ended_by" }?.1 == "ticks")
    #expect(harness.clock.now.offset == .seconds(6))
  }
}
