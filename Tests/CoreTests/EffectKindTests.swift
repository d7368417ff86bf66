import LoadctlCore
import Testing

@Suite struct EffectKindTests {
  @Test func noneChangesNothingAndStartsNothing() throws {
    let store = makeProbeStore { _ in .none }
    try store.send(.go)
    #expect(effectLines(store) == [])
    try store.finish()
  }

  @Test func sendIsAppliedRightAfterTheCurrentActionBeforeQueuedInputs() {
    let clock = VirtualClock()
    let harness = StoreHarness(
      initialState: Probe(), clock: clock, reducer: probe(clock: clock) { _ in .send(.got(1)) })
    // Both inputs are in the mailbox before the store takes the first one.
    harness.yield(.go)
    harness.yield(.got(2))
    clock.drain()
    #expect(harness.take() == ["apply go", "apply got(1)", "apply got(2)"])
    #expect(harness.state.got == [1, 2])
  }

  @Test func mergeRunsItsPartsAtOnce() throws {
    let store = makeProbeStore { clock in
      .merge(
        .run(name: "slow") { send in
          try await clock.sleep(for: .seconds(2))
          send(.got(2))
        },
        .run(name: "fast") { send in
          try await clock.sleep(for: .seconds(1))
          send(.got(1))
        }
      )
    }
    try store.send(.go)
    #expect(store.inFlight.map(\.label) == ["slow", "fast"])
    store.clock.advance(by: .seconds(1))
    try store.receive(.got(1)) { $0.got = [1] }
    store.clock.advance(by: .seconds(1))
    try store.receive(.got(2)) { $0.got = [1, 2] }
    try store.finish()
  }

  @Test func cancellableRegistersTheEffectUnderItsIdAndPolicy() throws {
    let store = makeProbeStore { clock in
      .run(name: "load") { _ in try await clock.sleep(for: .seconds(1)) }
        .cancellable(id: "x", policy: .queue)
    }
    try store.send(.go)
    let info = try #require(store.inFlight.first)
    #expect(store.inFlight.count == 1)
    #expect(info.serial == 1)
    #expect(info.id == "x")
    #expect(info.policy == .queue)
    #expect(info.name == "load")
    store.clock.advance(by: .seconds(1))
    try store.finish()
  }

  @Test func cancelByIdCancelsTheRunningEffect() throws {
    let store = makeProbeStore { clock in
      .run { send in
        try await clock.sleep(for: .seconds(1))
        send(.got(1))
      }
      .cancellable(id: "x")
    }
    try store.send(.go)
    try store.send(.cancel)
    #expect(store.clock.pendingSleepCount == 0)
    store.clock.advance(by: .seconds(5))
    try store.finish()
    #expect(effectLines(store) == ["start x#1", "end x#1 cancelled"])
  }

  @Test func ignoredReportsTheReasonAndMakesNoTransition() throws {
    let clock = VirtualClock()
    let harness = StoreHarness(
      initialState: Probe(), clock: clock,
      reducer: probe(clock: clock) { _ in .ignored("busy") })
    harness.send(.go)
    #expect(harness.take() == ["ignore go: busy"])

    let store = makeProbeStore { _ in .ignored("busy") }
    try store.sendIgnored(.go, reason: "busy")
    try store.finish()
  }

  @Test func finishRunEndsTheRunAndCancelsEffectsInFlight() {
    let clock = VirtualClock()
    let harness = StoreHarness(
      initialState: Probe(), clock: clock,
      reducer: probe(clock: clock) { clock in
        .run(name: "load") { send in
          try await clock.sleep(for: .seconds(1))
          send(.got(1))
        }
      })
    harness.send(.go)
    harness.send(.stop)
    harness.send(.got(9))
    clock.run()
    #expect(harness.take() == ["apply go", "start load#1", "apply stop", "end load#1 cancelled"])
    #expect(harness.result?.reason == .finished)
    #expect(harness.result?.state == Probe())
  }
}
