import LoadctlCore
import Testing

/// Ticks as `index late lateness at now`, for a consumer that is slow once, after tick 1.
private func slowConsumerTicks() -> [String] {
  let clock = VirtualClock()
  let seen = Recorder<String>()
  _ = clock.launch {
    for await tick in ClockTimer(interval: .seconds(1), clock: clock) {
      seen.append("\(tick.index) late \(tick.lateness) at \(clock.now)")
      if tick.index == 1 {
        try? await clock.sleep(for: .milliseconds(2_500))
      }
      if tick.index >= 4 { break }
    }
  }
  #expect(clock.run())
  return seen.values
}

@Suite struct ClockTimerTests {
  @Test func aTimerTakesAnExistentialClock() {
    let virtual = VirtualClock()
    let clock: any Clock<Duration> = virtual
    let seen = Recorder<String>()
    _ = virtual.launch {
      for await tick in ClockTimer(interval: .seconds(1), clock: clock) {
        seen.append("\(tick.index) at \(virtual.now)")
        if tick.index == 2 { break }
      }
    }
    #expect(virtual.run())
    #expect(seen.values == ["1 at 1.0 seconds", "2 at 2.0 seconds"])
  }

  @Test func tenThousandTicksDoNotDrift() {
    let clock = VirtualClock()
    clock.advance(by: .milliseconds(500))
    let interval = Duration.milliseconds(10)
    let start = clock.now
    let summary = Recorder<String>()
    _ = clock.launch {
      var count = 0
      var lateTicks = 0
      var gaps = 0
      var last: (index: Int, at: VirtualClock.Instant)?
      for await tick in ClockTimer(interval: interval, clock: clock) {
        count += 1
        if tick.lateness != .zero { lateTicks += 1 }
        if tick.index != count { gaps += 1 }
        last = (tick.index, clock.now)
        // Work that takes 3 ms of every 10: a `sleep(for: interval)` loop would drift by it.
        try? await clock.sleep(for: .milliseconds(3))
        if count == 10_000 { break }
      }
      summary.append("count \(count), late \(lateTicks), gaps \(gaps)")
      summary.append("last #\(last?.index ?? 0) at \(last?.at.offset ?? .zero)")
    }
    #expect(clock.run())
    #expect(summary.values == ["count 10000, late 0, gaps 0", "last #10000 at 100.5 seconds"])
    #expect(clock.now == start.advanced(by: interval * 10_000).advanced(by: .milliseconds(3)))
  }

  @Test func aSlowConsumerSeesAGapInsteadOfABurst() {
    #expect(
      slowConsumerTicks() == [
        "1 late 0.0 seconds at 1.0 seconds",
        "3 late 0.5 seconds at 3.5 seconds",
        "4 late 0.0 seconds at 4.0 seconds",
      ])
  }

  @Test func aLongStallSkipsEveryMissedDeadline() {
    let clock = VirtualClock()
    let seen = Recorder<Int>()
    _ = clock.launch {
      for await tick in ClockTimer(interval: .seconds(1), clock: clock) {
        seen.append(tick.index)
        if tick.index == 1 { try? await clock.sleep(for: .seconds(3)) }
        if tick.index >= 4 { break }
      }
    }
    clock.run()
    #expect(seen.values == [1, 4])
  }

  @Test func cancellingTheConsumerEndsTheSequenceQuietly() {
    let clock = VirtualClock()
    let seen = Recorder<String>()
    let consumer = clock.launch {
      for await tick in ClockTimer(interval: .seconds(1), clock: clock) {
        seen.append("tick \(tick.index)")
      }
      seen.append("ended at \(clock.now)")
    }
    clock.advance(by: .milliseconds(3_500))
    consumer.cancel()
    clock.drain()
    #expect(seen.values == ["tick 1", "tick 2", "tick 3", "ended at 3.5 seconds"])
    #expect(clock.pendingSleepCount == 0)
  }

  @Test func anIteratorInACancelledTaskReturnsNil() {
    let clock = VirtualClock()
    let seen = Recorder<String>()
    let consumer = Task(executorPreference: clock.executor) {
      var iterator = ClockTimer(interval: .seconds(1), clock: clock).makeAsyncIterator()
      let tick = await iterator.next()
      seen.append(tick == nil ? "nil" : "tick")
    }
    consumer.cancel()
    clock.drain()
    #expect(seen.values == ["nil"])
  }
}
