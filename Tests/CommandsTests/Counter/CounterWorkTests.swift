import LoadctlCommands
import LoadctlCore
import Testing

/// The delayed increment with injected work (what `--exec` plugs in): a failure is its own
/// action and leaves the count, and each policy starts, restarts or cancels the work as it does
/// the demo's sleep. All on a test clock, with a fake instead of processes.
@Suite struct CounterWorkTests {
  static let boom = "command failed (exit status 3): boom"

  @Test func aFailedWorkIsItsOwnActionAndLeavesTheCount() throws {
    let work = FakeWork(clock: VirtualClock(), script: [.fails(Self.boom)])
    let store = makeCounterStore(.drop, work: work)
    try store.send(.increment) { $0.count = 1 }
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    work.clock.advance(by: .seconds(1))
    try store.receive(.delayedIncrementFailed(Self.boom)) { $0.inFlight = 0 }
    #expect(store.state == CounterState(count: 1, inFlight: 0))
    try store.finish()
    #expect(counterEffects(store) == ["start #1", "end #1 failed"])
    #expect(work.log == ["run 1 started", "run 1 failed"])
  }

  @Test func dropAcceptsAgainOnceAFailureLanded() throws {
    let work = FakeWork(clock: VirtualClock(), script: [.fails(Self.boom)])
    let store = makeCounterStore(.drop, work: work)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    work.clock.advance(by: .milliseconds(500))
    try store.sendIgnored(.delayedIncrement, reason: "already loading")
    work.clock.advance(by: .milliseconds(500))
    try store.receive(.delayedIncrementFailed(Self.boom)) { $0.inFlight = 0 }
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    work.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    try store.finish()
    #expect(work.log == ["run 1 started", "run 1 failed", "run 2 started", "run 2 done"])
  }

  /// `latest` is watchexec's restart: the running work is cancelled (for `--exec`, its process
  /// group torn down) before the new one starts, and only the new one's result lands.
  @Test func latestCancelsTheRunningWorkBeforeStartingAgain() throws {
    let work = FakeWork(clock: VirtualClock())
    let store = makeCounterStore(.latest, work: work)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    work.clock.advance(by: .milliseconds(500))
    try store.send(.delayedIncrement)
    #expect(work.log == ["run 1 started", "run 1 cancelled", "run 2 started"])
    work.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    try store.finish()
    #expect(
      counterEffects(store) == [
        "start #1", "queue #2", "end #1 cancelled", "start #2", "end #2 finished",
      ])
  }

  /// `queue` runs the works one after another: a failure of the first does not stop the second.
  @Test func queueRunsTheNextWorkAfterAFailure() throws {
    let work = FakeWork(clock: VirtualClock(), script: [.fails(Self.boom)])
    let store = makeCounterStore(.queue, work: work)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    #expect(work.log == ["run 1 started"])
    work.clock.advance(by: .seconds(1))
    try store.receive(.delayedIncrementFailed(Self.boom)) { $0.inFlight = 1 }
    work.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 0
    }
    try store.finish()
    #expect(work.log == ["run 1 started", "run 1 failed", "run 2 started", "run 2 done"])
  }

  @Test func parallelRunsBothAndLoadsUntilTheLastEnds() throws {
    let work = FakeWork(clock: VirtualClock(), script: [.succeeds, .fails(Self.boom)])
    let store = makeCounterStore(.parallel, work: work)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    #expect(work.log == ["run 1 started", "run 2 started"])
    work.clock.advance(by: .seconds(1))
    try store.receive(.incrementResponse) {
      $0.count = 1
      $0.inFlight = 1
    }
    try store.receive(.delayedIncrementFailed(Self.boom)) { $0.inFlight = 0 }
    try store.finish()
  }

  @Test func cancelStopsEveryRunningWorkAndReportsNoFailure() throws {
    let work = FakeWork(clock: VirtualClock(), script: [.fails(Self.boom), .fails(Self.boom)])
    let store = makeCounterStore(.parallel, work: work)
    try store.send(.delayedIncrement) { $0.inFlight = 1 }
    try store.send(.delayedIncrement) { $0.inFlight = 2 }
    try store.send(.cancel) { $0.inFlight = 0 }
    work.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(
      work.log == ["run 1 started", "run 2 started", "run 1 cancelled", "run 2 cancelled"])
    #expect(
      counterEffects(store) == ["start #1", "start #2", "end #1 cancelled", "end #2 cancelled"])
  }

  @Test func theFailureIsNamedInJSONAndTextAndCannotBeGivenAsInput() {
    let failed = CounterAction.delayedIncrementFailed(Self.boom)
    #expect(failed.name == "delayed_increment_failed")
    #expect(failed.summary == "delayedIncrementFailed")
    #expect(failed.fields.map(\.0) == ["message"])
    #expect(failed.fields.first?.1 == .string(Self.boom))
    #expect(CounterAction.incrementResponse.fields.isEmpty)
    guard case .failure(let error) = CounterAction.parse("delayed_increment_failed") else {
      Issue.record("a failure must not be accepted as input")
      return
    }
    #expect(error.message.hasPrefix("'delayed_increment_failed' is sent by loadctl itself"))
  }
}

/// What `loadctl counter` prints for a failed delayed increment, and how the run ends.
@Suite struct CounterWorkRenderingTests {
  @Test func textShowsTheFailureWithItsMessageAndTheWorkWhenItStarts() async {
    let harness = CounterHarness(clock: VirtualClock())
    let work = FakeWork(clock: harness.clock, script: [.fails(CounterWorkTests.boom)])
    let flow = CounterFlow(policy: .drop, workLabel: "$ make test", work: work.operation)
    let end = await harness.run(flow, lines: ["+", "d", "+1500ms d"])
    #expect(
      harness.lines == [
        "  0.000s  counter  increment  count: 0 → 1",
        "  0.000s  counter  delayedIncrement  isLoading: false → true",
        "  0.000s  counter  effect delayed_increment#1 started ($ make test)",
        "  1.000s  counter  delayedIncrementFailed  isLoading: true → false — command failed "
          + "(exit status 3): boom",
        "  1.000s  counter  effect delayed_increment#1 failed",
        "  1.500s  counter  delayedIncrement  isLoading: false → true",
        "  1.500s  counter  effect delayed_increment#2 started ($ make test)",
        "  2.500s  counter  incrementResponse  count: 1 → 2, isLoading: true → false",
      ])
    #expect(end.status == .failed)
    #expect(end.summary == "count: 2, isLoading: false")
  }

  @Test func jsonCarriesTheMessageAndTheEndCountsTheFailures() async throws {
    let harness = CounterHarness(clock: VirtualClock(), json: true)
    let work = FakeWork(
      clock: harness.clock, script: [.fails(CounterWorkTests.boom), .fails("command failed")])
    let flow = CounterFlow(policy: .parallel, workLabel: "$ false", work: work.operation)
    let end = await harness.run(flow, lines: ["d", "d"])
    let failures = try harness.lines.map { try JSONParser.parse($0) }.filter {
      $0["action"] == .string("delayed_increment_failed")
    }
    #expect(failures.map { $0["message"] } == [.string(CounterWorkTests.boom), "command failed"])
    #expect(failures.last?["to"]?.serialized == #"{"count":0,"is_loading":false,"in_flight":0}"#)
    #expect(end.status == .failed)
    #expect(end.fields.map(\.0) == ["failed_increments", "state"])
    #expect(end.fields.first?.1 == .int(2))
  }

  @Test func aRunWithoutFailuresCompletesAsBefore() async {
    let harness = CounterHarness(clock: VirtualClock())
    let flow = CounterFlow(clock: harness.clock, delay: .seconds(1), policy: .drop)
    let end = await harness.run(flow, lines: ["d"])
    #expect(harness.lines[1] == "  0.000s  counter  effect delayed_increment#1 started (1s)")
    #expect(end.status == .completed)
    #expect(end.fields.map(\.0) == ["state"])
  }
}

/// `--exec` and the options around it: the work each command line gives, or the usage error.
@Suite struct CounterWorkOptionTests {
  private func work(_ arguments: [String]) throws -> CounterWork {
    guard case .run(let invocation) = try parse(["counter"] + arguments, spec: CommandTable.program)
    else { throw UsageError.invalidValue("not a run", command: nil) }
    return try CounterWork(invocation, mode: invocation.modeWithoutTerminal)
  }

  @Test func withoutExecTheWorkIsTheDelayAsBefore() throws {
    #expect(try work([]) == .sleep(.seconds(1)))
    #expect(try work(["--delay", "250ms"]) == .sleep(.milliseconds(250)))
    #expect(try work(["--delay", "250ms"]).label == "250ms")
    #expect(try work([]).options.map(\.0) == ["delay_ms"])
  }

  @Test func execRunsTheCommandWithItsGrace() throws {
    #expect(
      try work(["--exec", "make"]) == .command("make", killAfter: .seconds(2), output: .show))
    let work = try work(["--exec", "make\ttest", "--kill-after", "300ms", "--output", "failed"])
    #expect(work == .command("make\ttest", killAfter: .milliseconds(300), output: .failed))
    #expect(work.label == "$ make\\ttest")
    #expect(work.options.map(\.0) == ["exec", "kill_after_ms", "output"])
    #expect(try self.work(["--exec", "make"]).options.map(\.0) == ["exec", "kill_after_ms"])
    #expect(work.options[1].1 == .double(300))
  }

  @Test(arguments: [
    (["--exec", "true", "--delay", "1s"], "'--delay' cannot be used with '--exec'"),
    (["--exec", "true", "--clock", "virtual"], "'--exec' cannot be used with '--clock virtual'"),
    (["--kill-after", "1s"], "'--kill-after' only applies to '--exec'"),
    (["--output", "hide"], "'--output' only applies to '--exec'"),
  ])
  func conflictingOptionsAreUsageErrors(arguments: [String], message: String) {
    #expect {
      try work(arguments)
    } throws: { error in
      (error as? UsageError)?.message.hasPrefix(message) == true
    }
  }

  /// The real thing, once: a command's exit status and last stderr line name its failure.
  @Test func aFailingCommandThrowsWhatItSaid() async throws {
    let operation = CounterWork.command(
      "echo boom >&2; exit 3", killAfter: .seconds(1), output: .hide
    ).operation(clock: VirtualClock())
    await #expect(throws: LoadFailure(CounterWorkTests.boom)) { try await operation { _ in } }
    try await CounterWork.command("exit 0", killAfter: .seconds(1), output: .show)
      .operation(clock: VirtualClock())({ _ in })
  }
}
