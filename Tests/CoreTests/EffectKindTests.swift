import LoadctlCore
import LoadctlTestKit
import Testing

@Suite struct EffectKindTests {
  @Test func noneChangesNothingAndStartsNothing() throws {
    let store = makeProbeStore { _ in .none }
    store.send(.go)
    #expect(effectLines(store) == [])
    store.finish()
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
    store.send(.go)
    #expect(store.inFlight.map(\.label) == ["slow", "fast"])
    store.clock.advance(by: .seconds(1))
    store.receive(.got(1)) { $0.got = [1] }
    store.clock.advance(by: .seconds(1))
    store.receive(.got(2)) { $0.got = [1, 2] }
    store.finish()
  }

  @Test func cancellableRegistersTheEffectUnderItsIdAndPolicy() throws {
    let store = makeProbeStore { clock in
      .run(name: "load") { _ in try await clock.sleep(for: .seconds(1)) }
        .cancellable(id: "x", policy: .queue)
    }
    store.send(.go)
    let info = try #require(store.inFlight.first)
    #expect(store.inFlight.count == 1)
    #expect(info.serial == 1)
    #expect(info.id == "x")
    #expect(info.policy == .queue)
    #expect(info.name == "load")
    store.clock.advance(by: .seconds(1))
    store.finish()
  }

  @Test func cancelByIdCancelsTheRunningEffect() throws {
    let store = makeProbeStore { clock in
      .run { send in
        try await clock.sleep(for: .seconds(1))
        send(.got(1))
      }
      .cancellable(id: "x")
    }
    store.send(.go)
    store.send(.cancel)
    #expect(store.clock.pendingSleepCount == 0)
    store.clock.advance(by: .seconds(5))
    store.finish()
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
    store.sendIgnored(.go, reason: "busy")
    store.finish()
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

private enum CancelID: Hashable, Sendable { case load, save }

@Suite struct EffectIDTests {
  @Test func anIdWrapsAnyHashableValueAndStringsStayNames() {
    #expect(EffectID(CancelID.load) == EffectID(CancelID.load))
    #expect(EffectID(CancelID.load) != EffectID(CancelID.save))
    #expect(EffectID(CancelID.load) != EffectID("load"))
    #expect(EffectID(CancelID.load).name == "load")
    #expect(EffectID(EffectID("x")) == "x")
    #expect(Set([EffectID(CancelID.load), EffectID(CancelID.load), "load"]).count == 2)
  }

  @Test func anEnumIdCancelsTheEffectsRegisteredUnderIt() {
    let clock = VirtualClock()
    let harness = StoreHarness(initialState: 0, clock: clock) {
      (state: inout Int, action: Int) -> Effect<Int> in
      state = action
      switch action {
      case 1:
        return .run(name: "load") { send in
          try await clock.sleep(for: .seconds(1))
          send(2)
        }
        .cancellable(id: CancelID.load)
      case 3: return .cancel(id: CancelID.load)
      default: return .none
      }
    }
    harness.send(1)
    harness.send(3)
    clock.run()
    #expect(harness.take() == ["apply 1", "start load#1", "apply 3", "end load#1 cancelled"])
  }
}
