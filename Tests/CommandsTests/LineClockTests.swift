import LoadctlCore
import Synchronization
import Testing

@testable import LoadctlCommands

@Suite struct LineClockTests {
  /// Waits for `+1s` and `@3s` lines on a test clock whose `elapsed` runs `pace` times as fast
  /// as the clock: at 1 they apply on time, at 1.5 each wake-up is late by half its wait.
  private func lateness(pace: Int64) -> [String] {
    let clock = VirtualClock()
    let reported = Mutex<[String]>([])
    let lines = LineClock(
      clock: clock, elapsed: { clock.now.offset * pace / 2 },
      late: { line, lateness in reported.withLock { $0.append("line \(line) \(lateness)") } })
    _ = clock.launch {
      _ = await lines.wait(for: .after(.seconds(2)), line: 1)
      _ = await lines.wait(for: .at(.seconds(4)), line: 2)
    }
    clock.run()
    return reported.withLock { $0 }
  }

  @Test func aLineOnTimeIsNotLate() {
    #expect(lateness(pace: 2) == [])
  }

  /// At 3/2 pace: `+2s` from 0 is due at 2 s and seen at 3 s (1 s late); `@4s` is then 1 s
  /// away in elapsed time, a sleep of 1 s, seen at 4.5 s.
  @Test func aLineAppliedLateIsReportedWithItsNumber() {
    #expect(lateness(pace: 3) == ["line 1 1.0 seconds", "line 2 0.5 seconds"])
  }
}
