import LoadctlCommands
import LoadctlCore
import Testing

private func makeStore(tickLimit: Int? = nil) -> TestStore<TimerState, TimerAction> {
  let clock = VirtualClock()
  let flow = TimerFlow(clock: clock, interval: .seconds(1), tickLimit: tickLimit)
  return TestStore(initialState: TimerState(), clock: clock, reducer: flow.reduce)
}

private func effects(_ store: TestStore<TimerState, TimerAction>) -> [String] {
  store.effectEvents.map { effectLine($0) ?? "unexpected \($0)" }
}

@Suite struct TimerFlowTests {
  @Test func toggleOnTicksEveryIntervalOnTheInjectedClock() throws {
    let store = makeStore()
    try store.send(.toggle) { $0.isTimerActive = true }
    store.clock.advance(by: .milliseconds(999))
    #expect(throws: TestStoreFailure.self) { try store.receive(.tick(.onTime)) }
    store.clock.advance(by: .milliseconds(1))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    store.clock.advance(by: .seconds(2))
    try store.receive(.tick(.onTime)) { $0.ticks = 2 }
    try store.receive(.tick(.onTime)) { $0.ticks = 3 }
    try store.send(.toggle) { $0.isTimerActive = false }
    store.clock.advance(by: .seconds(10))
    try store.finish()
    #expect(effects(store) == ["start #1", "end #1 cancelled"])
    #expect(store.inFlight.isEmpty)
  }

  @Test func stopCancelsTheTimer() throws {
    let store = makeStore()
    try store.send(.start) { $0.isTimerActive = true }
    #expect(store.inFlight.map(\.id) == [TimerFlow.timerID])
    #expect(store.inFlight.map(\.policy) == [.latest])
    store.clock.advance(by: .seconds(1))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    try store.send(.stop) { $0.isTimerActive = false }
    #expect(store.inFlight.isEmpty)
    #expect(store.clock.pendingSleepCount == 0)
    store.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(effects(store) == ["start #1", "end #1 cancelled"])
  }

  @Test func toggleToggleToggleLeavesExactlyOneTimer() throws {
    let store = makeStore()
    try store.send(.toggle) { $0.isTimerActive = true }
    store.clock.advance(by: .milliseconds(500))
    try store.send(.toggle) { $0.isTimerActive = false }
    try store.send(.toggle) { $0.isTimerActive = true }
    #expect(store.inFlight.count == 1)
    #expect(store.clock.pendingSleepCount == 1)
    // The new timer counts from its own start: one tick per second from 0.5 s, never two.
    store.clock.advance(by: .milliseconds(500))
    #expect(throws: TestStoreFailure.self) { try store.receive(.tick(.onTime)) }
    store.clock.advance(by: .milliseconds(500))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    store.clock.advance(by: .seconds(1))
    try store.receive(.tick(.onTime)) { $0.ticks = 2 }
    try store.send(.stop) { $0.isTimerActive = false }
    try store.finish()
    #expect(effects(store) == ["start #1", "end #1 cancelled", "start #2", "end #2 cancelled"])
  }

  @Test func startWhileRunningAndStopWhileStoppedAreIgnored() throws {
    let store = makeStore()
    try store.sendIgnored(.stop, reason: "timer not running")
    try store.send(.start) { $0.isTimerActive = true }
    try store.sendIgnored(.start, reason: "timer already running")
    #expect(store.inFlight.count == 1)
    try store.send(.stop) { $0.isTimerActive = false }
    try store.finish()
  }

  @Test func resetGoesBackToZeroAndARunningTimerKeepsTicking() throws {
    let store = makeStore()
    try store.send(.start) { $0.isTimerActive = true }
    store.clock.advance(by: .seconds(2))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    try store.receive(.tick(.onTime)) { $0.ticks = 2 }
    try store.send(.reset) { $0.ticks = 0 }
    store.clock.advance(by: .seconds(1))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    try store.send(.stop) { $0.isTimerActive = false }
    try store.send(.reset) { $0.ticks = 0 }
    try store.send(.reset)
    try store.finish()
  }

  @Test func theTickLimitStopsTheTimerAndEndsTheRun() throws {
    let store = makeStore(tickLimit: 2)
    try store.send(.start) { $0.isTimerActive = true }
    store.clock.advance(by: .seconds(1))
    try store.receive(.tick(.onTime)) { $0.ticks = 1 }
    store.clock.advance(by: .seconds(1))
    try store.receive(.tick(.onTime)) {
      $0.ticks = 2
      $0.isTimerActive = false
    }
    store.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(effects(store) == ["start #1", "end #1 cancelled"])
  }

  @Test func missedDeadlinesStillCountAsElapsedTicks() throws {
    let store = makeStore()
    try store.send(.tick(TimerAction.Tick(missed: 2, lateness: .milliseconds(3)))) {
      $0.ticks = 3
    }
    try store.send(.tick(TimerAction.Tick(missed: 3))) { $0.ticks = 7 }
    try store.finish()
  }

  /// A count past `Int.max` (only a replayed recording can hold one) stops there instead of
  /// trapping.
  @Test func theTickCountSaturates() throws {
    let store = makeStore()
    try store.send(.tick(TimerAction.Tick(missed: Int.max - 1))) { $0.ticks = Int.max }
    try store.send(.tick(TimerAction.Tick(missed: 1 << 53))) { $0.ticks = Int.max }
    try store.finish()
  }

  @Test func skippedDeadlinesNeverCarryTheCountPastTheLimit() throws {
    let store = makeStore(tickLimit: 5)
    try store.send(.start) { $0.isTimerActive = true }
    try store.send(.tick(TimerAction.Tick(missed: 3))) { $0.ticks = 4 }
    try store.send(.tick(TimerAction.Tick(missed: 2))) {
      $0.ticks = 5
      $0.isTimerActive = false
    }
    try store.finish()
  }

  @Test func snapshotsAndActionFieldsUseSnakeCase() {
    #expect(
      TimerState(isTimerActive: true, ticks: 3).snapshot.serialized
        == #"{"is_timer_active":true,"ticks":3}"#)
    let tick = TimerAction.tick(TimerAction.Tick(missed: 1, lateness: .microseconds(250)))
    #expect(tick.name == "tick")
    #expect(JSONValue.object(tick.fields).serialized == #"{"missed":1,"lateness_ms":0.25}"#)
    #expect(
      [TimerAction.toggle, .start, .stop, .reset].map(\.name) == [
        "toggle", "start", "stop", "reset",
      ])
    #expect(
      TimerState(isTimerActive: true, ticks: 4).changes(since: TimerState(ticks: 3)) == [
        "isTimerActive: false → true", "ticks: 3 → 4",
      ])
  }

  @Test(arguments: [
    ("toggle", TimerAction.toggle), ("t", .toggle), ("START", .start), ("s", .start),
    ("stop", .stop), ("p", .stop), ("reset", .reset), ("r", .reset),
  ])
  func inputWordsParse(text: String, action: TimerAction) throws {
    #expect(try TimerAction.parse(text).get() == action)
  }

  @Test func tickAndUnknownWordsAreRejected() {
    #expect(throws: LineProblem.self) { try TimerAction.parse("tick").get() }
    #expect(
      throws: LineProblem("unknown action 'go' (expected toggle, start, stop or reset)")
    ) { try TimerAction.parse("go").get() }
  }
}
