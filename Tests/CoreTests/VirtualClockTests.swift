import LoadctlCore
import Testing

private func at(_ seconds: Int) -> VirtualClock.Instant { .init(offset: .seconds(seconds)) }

@Suite struct VirtualClockTests {
  /// An instant further than a `Duration` holds saturates instead of trapping (a million retries
  /// of a long backoff on virtual time trapped with SIGILL).
  @Test func anInstantBeyondWhatADurationHoldsSaturates() {
    let start = VirtualClock.Instant(offset: .zero)
    let latest = start.advanced(by: Duration(attoseconds: .max))
    #expect(latest.advanced(by: .seconds(1)) == latest)
    #expect(latest.advanced(by: Duration(attoseconds: .max)) == latest)
    let earliest = start.advanced(by: Duration(attoseconds: .min))
    #expect(earliest.advanced(by: .seconds(-1)) == earliest)
    #expect(latest.advanced(by: .seconds(-1)).offset == Duration(attoseconds: .max) - .seconds(1))
  }

  @Test func aLaunchedTaskHasFinishedWhenAdvanceReturns() async throws {
    let clock = VirtualClock()
    let finished = Recorder<Bool>()
    let task = clock.launch {
      try? await clock.sleep(for: .seconds(1))
      finished.append(true)
      return "woke at \(clock.now)"
    }
    clock.advance(by: .seconds(1))
    // Checked first: awaiting a task that still waits for the clock would never return.
    try #require(finished.values == [true])
    #expect(await task.value == "woke at 1.0 seconds")
  }

  @Test func sleepersWithEqualDeadlinesWakeInTheOrderTheySlept() {
    let clock = VirtualClock()
    let woke = Recorder<String>()
    for name in ["b", "c", "a", "d"] {
      _ = clock.launch {
        try? await clock.sleep(until: at(5))
        woke.append(name)
      }
    }
    #expect(clock.pendingSleepCount == 4)
    clock.advance(by: .seconds(5))
    #expect(woke.values == ["b", "c", "a", "d"])
  }

  @Test func sleepersWithDifferentDeadlinesWakeInDeadlineOrderAtTheirDeadline() {
    let clock = VirtualClock()
    let woke = Recorder<String>()
    for seconds in [3, 1, 2] {
      _ = clock.launch {
        try? await clock.sleep(for: .seconds(seconds))
        woke.append("\(seconds) at \(clock.now)")
      }
    }
    clock.advance(by: .seconds(10))
    #expect(woke.values == ["1 at 1.0 seconds", "2 at 2.0 seconds", "3 at 3.0 seconds"])
    #expect(clock.now == at(10))
  }

  @Test func advanceByWakesExactlyTheSleepersThatAreDue() {
    let clock = VirtualClock()
    let woke = Recorder<Int>()
    for seconds in [1, 2, 3] {
      _ = clock.launch {
        try? await clock.sleep(for: .seconds(seconds))
        woke.append(seconds)
      }
    }
    clock.advance(by: .milliseconds(1_999))
    #expect(woke.values == [1])
    clock.advance(by: .milliseconds(1))
    #expect(woke.values == [1, 2])
    #expect(clock.pendingSleepCount == 1)
    #expect(clock.nextDeadline == at(3))
  }

  @Test func advanceReturnsWhenEveryWokenTaskReachedItsNextSuspension() {
    let clock = VirtualClock()
    let steps = Recorder<String>()
    _ = clock.launch {
      for step in 1...5 {
        try? await clock.sleep(for: .seconds(1))
        steps.append("step \(step) at \(clock.now)")
      }
    }
    // The task sleeps again inside the window, so one call wakes it twice, then it sleeps.
    clock.advance(by: .milliseconds(2_500))
    #expect(steps.values == ["step 1 at 1.0 seconds", "step 2 at 2.0 seconds"])
    #expect(clock.pendingSleepCount == 1)
    #expect(clock.nextDeadline == at(3))
    #expect(clock.now == VirtualClock.Instant(offset: .milliseconds(2_500)))
  }

  @Test func advanceToNeverMovesTimeBackwards() {
    let clock = VirtualClock()
    let woke = Recorder<Int>()
    _ = clock.launch {
      try? await clock.sleep(until: at(7))
      woke.append(7)
    }
    clock.advance(to: at(5))
    clock.advance(to: at(2))
    #expect(clock.now == at(5))
    clock.advance(by: .seconds(1))
    #expect(clock.now == at(6))
    #expect(woke.values == [])
    clock.advance(to: at(7))
    #expect(woke.values == [7])
  }

  @Test func cancellingASleepingTaskThrowsCancellationErrorAndRemovesTheSleeper() {
    let clock = VirtualClock()
    let outcome = Recorder<String>()
    let task = clock.launch {
      do {
        try await clock.sleep(for: .seconds(10))
        outcome.append("woke")
      } catch is CancellationError {
        outcome.append("cancelled at \(clock.now)")
      } catch {
        outcome.append("other error: \(error)")
      }
    }
    #expect(clock.pendingSleepCount == 1)
    task.cancel()
    #expect(clock.pendingSleepCount == 0)
    #expect(clock.nextDeadline == nil)
    clock.drain()
    #expect(outcome.values == ["cancelled at 0.0 seconds"])
    clock.advance(by: .seconds(10))
    #expect(outcome.values == ["cancelled at 0.0 seconds"])
  }

  @Test func sleepingInAnAlreadyCancelledTaskThrowsAtOnce() {
    let clock = VirtualClock()
    let outcome = Recorder<String>()
    let task = Task(executorPreference: clock.executor) {
      do {
        try await clock.sleep(for: .seconds(1))
        outcome.append("woke")
      } catch {
        outcome.append("\(type(of: error))")
      }
    }
    task.cancel()
    clock.drain()
    #expect(outcome.values == ["CancellationError"])
    #expect(clock.pendingSleepCount == 0)
  }

  /// As on TCA's `TestClock`, a deadline already reached waits until time next moves; an
  /// advance by zero wakes it, and the sleeps it then reaches, without moving `now`.
  @Test func sleepingUntilAPastOrPresentDeadlineWaitsForTheNextAdvance() {
    let clock = VirtualClock()
    clock.advance(by: .seconds(5))
    let woke = Recorder<String>()
    _ = clock.launch {
      try? await clock.sleep(until: at(3))
      woke.append("past")
      try? await clock.sleep(until: at(5))
      woke.append("now")
      try? await clock.sleep(for: .zero)
      woke.append("zero")
    }
    #expect(woke.values == [])
    #expect(clock.pendingSleepCount == 1)
    clock.advance()
    #expect(woke.values == ["past", "now", "zero"])
    #expect(clock.pendingSleepCount == 0)
    #expect(clock.now == at(5))
  }

  @Test func runWakesEverySleeperUntilNoneIsLeft() {
    let clock = VirtualClock()
    let woke = Recorder<Int>()
    for seconds in [4, 2] {
      _ = clock.launch {
        for round in 1...3 {
          try? await clock.sleep(for: .seconds(seconds))
          woke.append(seconds * round)
        }
      }
    }
    #expect(clock.run())
    #expect(woke.values == [2, 4, 4, 6, 8, 12])
    #expect(clock.now == at(12))
    #expect(clock.pendingSleepCount == 0)
  }

  @Test func runReturnsFalseWhenAnEndlessTimerReachesTheLimit() {
    let clock = VirtualClock()
    let ticks = Recorder<Int>()
    let task = clock.launch {
      var tick = 0
      while !Task.isCancelled {
        try? await clock.sleep(for: .seconds(1))
        tick += 1
        ticks.append(tick)
      }
      ticks.append(-1)
    }
    #expect(clock.run(limit: 100) == false)
    #expect(ticks.values.count == 100)
    #expect(clock.now == at(100))
    task.cancel()
    clock.drain()
    #expect(ticks.values.suffix(2) == [101, -1])
    #expect(clock.pendingSleepCount == 0)
  }

  @Test func nextDeadlineIsTheEarliestPendingDeadline() {
    let clock = VirtualClock()
    #expect(clock.nextDeadline == nil)
    let late = clock.launch { try? await clock.sleep(until: at(9)) }
    let early = clock.launch { try? await clock.sleep(until: at(4)) }
    #expect(clock.nextDeadline == at(4))
    early.cancel()
    #expect(clock.nextDeadline == at(9))
    late.cancel()
    #expect(clock.nextDeadline == nil)
    clock.drain()
  }
}
