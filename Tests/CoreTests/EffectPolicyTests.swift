import LoadctlCore
import Testing

private enum Act: Equatable, Sendable {
  case go(Int)
  case got(Int)
  case cancel
  case goAndCancel
  case goThenCancel
}

private struct Loads: Equatable, Sendable {
  var got: [Int] = []
}

/// Async work that takes several turns of the executor, like flushing a file or a socket.
///
/// Each step is a child task, so it goes to the back of the executor's queue: anything else
/// that could run now (another effect, the store's loop) would run in between.
private func cleanupWork() async {
  for _ in 0..<3 {
    await withTaskGroup(of: Void.self) { group in group.addTask {} }
  }
}

/// `go(n)` loads for one second and sends `got(n)`; cancelled, it cleans up and tries to send
/// `got(-n)`, which must never be applied.
private func loader(
  clock: VirtualClock, policy: EffectPolicy, trace: Recorder<String>
) -> Store<Loads, Act>.Reducer {
  @Sendable func load(_ n: Int) -> Effect<Act> {
    .run(name: "load") { send in
      do {
        try await clock.sleep(for: .seconds(1))
      } catch {
        trace.append("cleanup \(n) begin")
        await cleanupWork()
        trace.append("cleanup \(n) end")
        send(.got(-n))
        throw error
      }
      send(.got(n))
    }
    .cancellable(id: "load", policy: policy)
  }
  @Sendable func sendAtOnce() -> Effect<Act> {
    .run(name: "instant") { send in send(.got(0)) }.cancellable(id: "load", policy: policy)
  }
  return { state, action in
    switch action {
    case .go(let n):
      return load(n)
    case .got(let n):
      state.got.append(n)
      return .none
    case .cancel:
      return .cancel(id: "load")
    case .goAndCancel:
      return .merge(sendAtOnce(), .cancel(id: "load"))
    case .goThenCancel:
      return .merge(sendAtOnce(), .send(.cancel))
    }
  }
}

private func makeHarness(_ policy: EffectPolicy) -> StoreHarness<Loads, Act> {
  let clock = VirtualClock()
  let trace = Recorder<String>()
  return StoreHarness(
    initialState: Loads(), clock: clock, trace: trace,
    reducer: loader(clock: clock, policy: policy, trace: trace))
}

private func at(_ seconds: Int) -> VirtualClock.Instant { .init(offset: .seconds(seconds)) }

@Suite struct EffectPolicyTests {
  /// TCA issue #1848: an effect cancelled in the turn that started it must not run.
  @Test(arguments: EffectPolicy.allCases)
  func cancelInTheSameTurnCancels(policy: EffectPolicy) {
    let harness = makeHarness(policy)
    harness.send(.goAndCancel)
    harness.clock.run()
    #expect(harness.take() == ["apply goAndCancel", "start instant#1", "end instant#1 cancelled"])
    #expect(harness.state.got == [])
  }

  @Test(arguments: EffectPolicy.allCases)
  func cancelSentRightAfterTheStartCancels(policy: EffectPolicy) {
    let harness = makeHarness(policy)
    harness.send(.goThenCancel)
    harness.clock.run()
    #expect(
      harness.take() == [
        "apply goThenCancel", "start instant#1", "apply cancel", "end instant#1 cancelled",
      ])
    #expect(harness.state.got == [])
  }

  @Test func latestStartsTheNewEffectOnlyAfterTheOldOneFinished() {
    let harness = makeHarness(.latest)
    harness.send(.go(1))
    #expect(harness.take() == ["apply go(1)", "start load#1"])
    harness.send(.go(2))
    #expect(
      harness.take() == [
        "apply go(2)", "queue load#2",
        "cleanup 1 begin", "cleanup 1 end", "end load#1 cancelled",
        "start load#2",
      ])
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply got(2)", "end load#2 finished"])
    #expect(harness.state.got == [2])
  }

  @Test func replaceStartsTheNewEffectAtOnceWhileTheOldOneUnwinds() {
    let harness = makeHarness(.replace)
    harness.send(.go(1))
    #expect(harness.take() == ["apply go(1)", "start load#1"])
    harness.send(.go(2))
    #expect(
      harness.take() == [
        "apply go(2)", "start load#2",
        "cleanup 1 begin", "cleanup 1 end", "end load#1 cancelled",
      ])
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply got(2)", "end load#2 finished"])
    #expect(harness.state.got == [2])
  }

  @Test func latestReplacesAnEffectStillWaitingForTheOldOne() {
    let harness = makeHarness(.latest)
    harness.send(.go(1))
    harness.yield(.go(2))
    harness.yield(.go(3))
    harness.clock.drain()
    #expect(
      harness.take() == [
        "apply go(1)", "start load#1",
        "apply go(2)", "queue load#2", "cleanup 1 begin",
        "apply go(3)", "end load#2 cancelled", "queue load#3",
        "cleanup 1 end", "end load#1 cancelled",
        "start load#3",
      ])
    harness.clock.run()
    #expect(harness.take() == ["apply got(3)", "end load#3 finished"])
    #expect(harness.state.got == [3])
  }

  @Test func dropIgnoresWhileRunningAndAcceptsAgainAfterItEnded() {
    let harness = makeHarness(.drop)
    harness.send(.go(1))
    harness.send(.go(2))
    #expect(harness.take() == ["apply go(1)", "start load#1", "apply go(2)", "drop load#2"])
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply got(1)", "end load#1 finished"])
    harness.send(.go(3))
    harness.clock.advance(by: .seconds(1))
    #expect(
      harness.take() == ["apply go(3)", "start load#3", "apply got(3)", "end load#3 finished"])
    #expect(harness.state.got == [1, 3])
  }

  /// A cancelled effect is no longer in flight, so `drop` takes the next one, but starts it only
  /// once the cancelled one has ended: two never run at once (a command torn down while the
  /// next one starts would overlap it). What comes meanwhile is dropped.
  @Test func dropWaitsForACancelledEffectToEndBeforeTheNextStarts() {
    let harness = makeHarness(.drop)
    harness.send(.go(1))
    harness.yield(.cancel)
    harness.yield(.go(2))
    harness.yield(.go(3))
    harness.clock.drain()
    let lines = harness.take()
    #expect(
      lines.filter { !$0.hasPrefix("cleanup") } == [
        "apply go(1)", "start load#1", "apply cancel", "apply go(2)", "queue load#2",
        "apply go(3)", "drop load#3", "end load#1 cancelled", "start load#2",
      ])
    // load#2 starts after load#1's cleanup has ended.
    #expect(
      (lines.firstIndex(of: "cleanup 1 end") ?? .max) < (lines.firstIndex(of: "start load#2") ?? 0),
      "\(lines)")
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply got(2)", "end load#2 finished"])
    #expect(harness.state.got == [2])
  }

  @Test func queueRunsOneAtATimeInOrder() {
    let harness = makeHarness(.queue)
    harness.yield(.go(1))
    harness.yield(.go(2))
    harness.yield(.go(3))
    harness.clock.drain()
    #expect(
      harness.take() == [
        "apply go(1)", "start load#1", "apply go(2)", "queue load#2", "apply go(3)",
        "queue load#3",
      ])
    for n in 1...3 {
      harness.clock.advance(by: .seconds(1))
      let next = n < 3 ? ["start load#\(n + 1)"] : []
      #expect(harness.take() == ["apply got(\(n))", "end load#\(n) finished"] + next)
      #expect(harness.clock.now == at(n))
    }
    #expect(harness.state.got == [1, 2, 3])
  }

  @Test func queueCancelCancelsTheRunningAndTheWaitingEffects() {
    let harness = makeHarness(.queue)
    harness.send(.go(1))
    harness.send(.go(2))
    harness.send(.cancel)
    harness.clock.run()
    #expect(
      harness.take() == [
        "apply go(1)", "start load#1", "apply go(2)", "queue load#2",
        "apply cancel", "end load#2 cancelled",
        "cleanup 1 begin", "cleanup 1 end", "end load#1 cancelled",
      ])
    #expect(harness.state.got == [])
  }

  @Test func parallelRunsAllAndCancelCancelsThemAll() {
    let harness = makeHarness(.parallel)
    for n in 1...3 { harness.send(.go(n)) }
    harness.clock.advance(by: .seconds(1))
    #expect(harness.state.got == [1, 2, 3])
    _ = harness.take()

    for n in 4...6 { harness.send(.go(n)) }
    #expect(harness.clock.pendingSleepCount == 3)
    harness.send(.cancel)
    let lines = harness.take()
    #expect(
      lines.filter { !$0.hasPrefix("cleanup") } == [
        "apply go(4)", "start load#4", "apply go(5)", "start load#5", "apply go(6)",
        "start load#6", "apply cancel",
        "end load#4 cancelled", "end load#5 cancelled", "end load#6 cancelled",
      ])
    #expect(
      lines.filter { $0.hasSuffix("end") } == ["cleanup 4 end", "cleanup 5 end", "cleanup 6 end"])
    #expect(harness.clock.pendingSleepCount == 0)
    #expect(harness.state.got == [1, 2, 3])
  }

  @Test func actionsSentByACancelledEffectAreNeverApplied() {
    let clock = VirtualClock()
    let harness = StoreHarness<Loads, Act>(initialState: Loads(), clock: clock) {
      state, action in
      switch action {
      case .go(let n):
        return .run { send in
          // Sends from the cancellation handler, which runs on the cancelling thread and so
          // does not see its own task as cancelled; then again after swallowing the error.
          await withTaskCancellationHandler {
            try? await clock.sleep(for: .seconds(1))
          } onCancel: {
            send(.got(-n))
          }
          send(.got(n))
        }
        .cancellable(id: "load")
      case .got(let n):
        state.got.append(n)
        return .none
      default:
        return .cancel(id: "load")
      }
    }
    harness.send(.go(1))
    harness.send(.cancel)
    clock.run()
    #expect(
      harness.take() == ["apply go(1)", "start load#1", "apply cancel", "end load#1 cancelled"])
    #expect(harness.state.got == [])
  }
}
