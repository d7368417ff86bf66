import LoadctlCore
import LoadctlTestKit
import Synchronization
import Testing

/// Effects composed in less common ways keep the meaning of their parts: `cancellable` registers
/// only async work, an ignored action does nothing at all, an effect cancelled in the turn that
/// started it does no work, and a `TestStore` asserts ignored actions from either side.
@Suite struct EffectCompositionTests {
  /// `finishRun` and `send` under `cancellable` act as they do unwrapped: the run ends at once.
  /// The run used to go on, and end idle with its inputs.
  @Test(arguments: [false, true])
  func finishRunUnderCancellableEndsTheRun(merged: Bool) {
    func run(wrapped: Bool) -> (StoreStopReason?, [String]) {
      let clock = VirtualClock()
      let harness = StoreHarness(
        initialState: Probe(), clock: clock,
        reducer: probe(clock: clock) { _ in
          let effect: Effect<ProbeAction> = merged ? .merge(.send(.got(1)), .finishRun) : .finishRun
          return wrapped ? effect.cancellable(id: "x", policy: .latest) : effect
        })
      harness.send(.go)
      clock.run()
      return (harness.result?.reason, harness.take())
    }
    let (reason, trace) = run(wrapped: true)
    #expect(reason == .finished)
    #expect(trace == run(wrapped: false).1)
  }

  /// The async part of a merge under `cancellable` is registered under the id, as one effect.
  @Test func runsMergedWithTurnPartsAreRegisteredUnderTheId() throws {
    let store = makeProbeStore { clock in
      .merge(
        .send(.got(0)),
        .run(name: "load") { send in
          try await clock.sleep(for: .seconds(1))
          send(.got(1))
        }
      )
      .cancellable(id: "x", policy: .latest)
    }
    store.send(.go)
    store.receive(.got(0)) { $0.got = [0] }
    #expect(store.inFlight.map(\.label) == ["load"])
    #expect(store.inFlight.first?.id == "x")
    store.clock.advance(by: .seconds(1))
    store.receive(.got(1)) { $0.got = [0, 1] }
    store.finish()
  }

  /// An ignored action changed no state, and work merged with `.ignored` still goes to its
  /// policy (the counter's second tap under `drop` is ignored and reported dropped).
  @Test func workMergedWithIgnoredStillGoesToItsPolicy() throws {
    let store = makeProbeStore { clock in
      .merge(
        .ignored("busy"),
        .run(name: "load") { _ in try await clock.sleep(for: .seconds(1)) }
          .cancellable(id: "x", policy: .drop))
    }
    store.sendIgnored(.go, reason: "busy")
    store.sendIgnored(.go, reason: "busy")
    store.clock.advance(by: .seconds(1))
    #expect(effectLines(store) == ["start load#1", "drop load#2", "end load#1 finished"])
    store.finish()
  }

  /// An effect cancelled in the reducer turn that started it does none of its work.
  @Test func anEffectCancelledInItsOwnTurnDoesNoWork() throws {
    let ran = Mutex(false)
    let store = makeProbeStore { _ in
      .merge(
        .run(name: "work") { _ in ran.withLock { $0 = true } }.cancellable(id: "x"),
        .cancel(id: "x"))
    }
    store.send(.go)
    store.clock.run()
    #expect(!ran.withLock { $0 }, "the work ran")
    #expect(effectLines(store) == ["start work#1", "end work#1 cancelled"])
    store.finish()
  }

  /// `receiveIgnored` asserts an ignored action an effect sent; `sendIgnored` and
  /// `receiveIgnored` fail when the ignored action changed the state.
  @Test func ignoredActionsFromEffectsAndStateChangesAreAsserted() throws {
    let clock = VirtualClock()
    let store = TestStore(initialState: 0, clock: clock) { (state: inout Int, action: Int) in
      switch action {
      case 0: return .run { send in send(1) }
      case 1: return .ignored("nothing waits")
      default:
        state += 100
        return .ignored("not now")
      }
    }
    store.send(0)
    store.receiveIgnored(1, reason: "nothing waits")
    withKnownIssue { store.sendIgnored(2, reason: "not now") }
    #expect(store.state == 100, "the store's state is the store's, after the failure too")
    store.finish()
  }
}
