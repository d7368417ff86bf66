import LoadctlCommands
import Testing

@Suite struct TimerDialTests {
  @Test(arguments: [
    (Duration.seconds(1), 0, "00:00"), (.seconds(1), 3, "00:03"), (.seconds(1), 59, "00:59"),
    (.seconds(1), 61, "01:01"), (.seconds(1), 3_600, "60:00"), (.seconds(5), 13, "01:05"),
    (.milliseconds(10), 20, "00:00.20"), (.milliseconds(10), 1_000, "00:10.00"),
    (.milliseconds(100), 15, "00:01.5"), (.milliseconds(250), 3, "00:00.75"),
    (.milliseconds(1), 1_234, "00:01.234"), (.milliseconds(1500), 3, "00:04.5"),
  ])
  func elapsedIsTicksTimesTheInterval(interval: Duration, ticks: Int, text: String) {
    #expect(TimerDial(interval: interval).elapsed(ticks: ticks) == text)
  }

  /// An elapsed time past what a `Duration` holds is not shown (it trapped in the multiplication).
  @Test(arguments: [
    (Duration.seconds(3_600), Int.max), (Duration.seconds(1), 1 << 62),
    (Duration.seconds(86_400), 1 << 53),
  ])
  func anElapsedTimeBeyondADurationIsNotShown(interval: Duration, ticks: Int) {
    #expect(TimerDial(interval: interval).elapsed(ticks: ticks) == "--:--")
  }

  @Test(arguments: [
    (0, "▕               ▏"), (1, "▕▎              ▏"), (2, "▕▌              ▏"),
    (3, "▕▊              ▏"), (4, "▕█              ▏"), (30, "▕███████▌       ▏"),
    (59, "▕██████████████▊▏"), (60, "▕               ▏"), (61, "▕▎              ▏"),
  ])
  func theBarHasSixtyStepsAndWrapsLikeAClockHand(ticks: Int, bar: String) {
    let rendered = TimerDial(interval: .seconds(1)).bar(ticks: ticks)
    #expect(rendered == bar)
    #expect(rendered.count == 17)
  }

  @Test func theFaceShowsWhetherTheTimerRuns() {
    let dial = TimerDial(interval: .seconds(1))
    #expect(dial.render(TimerState(isTimerActive: true, ticks: 5)) == "▶ 00:05 ▕█▎             ▏")
    #expect(dial.render(TimerState(isTimerActive: false, ticks: 5)) == "■ 00:05 ▕█▎             ▏")
  }
}
