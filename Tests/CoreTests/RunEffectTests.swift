import LoadctlCore
import LoadctlTestKit
import Testing

@Suite struct RunEffectTests {
  @Test func runSendsActionsBackInOrder() throws {
    let store = makeProbeStore { clock in
      .run { send in
        send(.got(1))
        send(.got(2))
        try await clock.sleep(for: .seconds(1))
        send(.got(3))
      }
    }
    store.send(.go)
    store.receive(.got(1)) { $0.got = [1] }
    store.receive(.got(2)) { $0.got = [1, 2] }
    store.clock.advance(by: .seconds(1))
    store.receive(.got(3)) { $0.got = [1, 2, 3] }
    store.finish()
    #expect(effectLines(store) == ["start effect#1", "end effect#1 finished"])
  }

  /// The outcome observers see; the test kit also records the unhandled error as a failure.
  @Test func runErrorWithoutHandlerEndsAsFailed() throws {
    let store = makeProbeStore { _ in .run(name: "load") { _ in throw Boom() } }
    withKnownIssue { store.send(.go) }
    store.finish()
    #expect(effectLines(store) == ["start load#1", "end load#1 failed(boom)"])
  }

  @Test func runErrorWithHandlerDeliversTheHandlersActions() throws {
    let store = makeProbeStore { _ in
      .run(name: "load") { _ in
        throw Boom()
      } catch: { error, send in
        send(.caught("\(error)"))
      }
    }
    store.send(.go)
    store.receive(.caught("boom")) { $0.caught = ["boom"] }
    store.finish()
    #expect(effectLines(store) == ["start load#1", "end load#1 failed(boom)"])
  }

  @Test func thrownCancellationErrorIsNotAFailure() throws {
    let store = makeProbeStore { _ in
      .run(name: "load") { _ in
        throw CancellationError()
      } catch: { _, send in
        send(.caught("handler must not run"))
      }
    }
    store.send(.go)
    store.finish()
    #expect(effectLines(store) == ["start load#1", "end load#1 cancelled"])
  }

  @Test func errorThrownAfterCancellationIsNotAFailure() throws {
    // The handler's own sends would be dropped anyway, so record its calls directly.
    let handled = Recorder<String>()
    let store = makeProbeStore { clock in
      .run(name: "load") { _ in
        do {
          try await clock.sleep(for: .seconds(10))
        } catch {
          throw Boom()  // like URLError(.cancelled): not a CancellationError
        }
      } catch: { error, _ in
        handled.append("\(error)")
      }
      .cancellable(id: "x")
    }
    store.send(.go)
    store.send(.cancel)
    store.finish()
    #expect(effectLines(store) == ["start load#1", "end load#1 cancelled"])
    #expect(handled.values == [])
    #expect(store.clock.pendingSleepCount == 0)
  }

  @Test func transitionsNameTheEffectThatSentTheAction() {
    let clock = VirtualClock()
    let sources = Recorder<String>()
    let store = Store<Probe, ProbeAction>(initialState: Probe()) { state, action in
      switch action {
      case .go:
        return .run(name: "load") { send in send(.got(1)) }
      case .got(1):
        return .send(.got(2))
      default:
        return .none
      }
    }
    _ = clock.launch {
      let result = await store.run(inputs: ProbeInputs(actions: [.go])) { event in
        if case .transition(let action, _, _, let effect) = event {
          sources.append("\(action) from \(effect?.label ?? "input")")
        }
      }
      sources.append("run ended: \(result.reason)")
    }
    clock.run()
    #expect(
      sources.values == [
        "go from input", "got(1) from load", "got(2) from load", "run ended: idle",
      ])
  }

  @Test func sendDropsActionsFromACancelledTask() {
    let clock = VirtualClock()
    let delivered = Recorder<ProbeAction>()
    let send = Send<ProbeAction> { delivered.append($0) }
    let task = clock.launch {
      send(.got(1))
      try? await clock.sleep(for: .seconds(1))
      send(.got(2))
    }
    task.cancel()
    clock.drain()
    #expect(delivered.values == [.got(1)])
  }
}
