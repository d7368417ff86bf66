import LoadctlCore
import Testing

private enum Act: Equatable, Sendable {
  case go(Int)
  case got(Int)
  case cancel
  case fail
  case stop
}

private struct Loads: Equatable, Sendable {
  var got: [Int] = []
  var stopped = false
}

/// `go(n)` loads for `n` seconds and sends `got(n)`, under `policy`; `fail` starts an effect that
/// throws; `cancel` cancels the loads; `stop` (the cancel action) marks the state.
private func loader(clock: VirtualClock, policy: EffectPolicy) -> Store<Loads, Act>.Reducer {
  { state, action in
    switch action {
    case .go(let n):
      return .run(name: "load") { send in
        try await clock.sleep(for: .seconds(n))
        send(.got(n))
      }
      .cancellable(id: "load", policy: policy)
    case .got(let n):
      state.got.append(n)
      return .none
    case .cancel:
      return .cancel(id: "load")
    case .fail:
      return .run(name: "fail") { _ in throw Boom() }
    case .stop:
      state.stopped = true
      return .none
    }
  }
}

/// Runs `script` (inputs, with seconds to wait before each) on a virtual clock, recording it.
/// - Returns: The events the run reported, its result, and its recording.
private func recordRun(
  policy: EffectPolicy, script: [(wait: Int, action: Act)], cancelAfter: Int? = nil
) -> (events: [String], result: StoreResult<Loads>?, recording: StoreRecording<Act>) {
  let clock = VirtualClock()
  let recording = StoreRecording<Act>()
  let harness = StoreHarness(
    initialState: Loads(), clock: clock, stopWhenIdle: true, onCancel: .stop, journal: recording,
    reducer: loader(clock: clock, policy: policy))
  for (wait, action) in script {
    if wait > 0 { clock.advance(by: .seconds(wait)) }
    harness.send(action)
  }
  if let cancelAfter {
    clock.advance(by: .seconds(cancelAfter))
    harness.cancel()
  } else {
    harness.finishInputs()
    clock.run()
  }
  return (harness.take(), harness.result, recording)
}

private func replay(
  _ recording: StoreRecording<Act>, policy: EffectPolicy
) -> (events: [String], result: StoreResult<Loads>) {
  let clock = VirtualClock()
  let store = Store(initialState: Loads(), reducer: loader(clock: clock, policy: policy))
  var events: [String] = []
  let result = store.replay(recording.happenings, onCancel: .stop) { events.append(describe($0)) }
  return (events, result)
}

private let racing: [(wait: Int, action: Act)] = [
  (0, .go(3)), (1, .go(1)), (0, .go(2)), (1, .fail), (4, .go(1)), (0, .cancel),
]

@Suite struct StoreReplayTests {
  @Test(arguments: EffectPolicy.allCases)
  func aReplayReportsWhatTheRecordedRunReported(policy: EffectPolicy) {
    let recorded = recordRun(policy: policy, script: racing)
    let replayed = replay(recorded.recording, policy: policy)
    #expect(recorded.events.contains("start load#1"))
    #expect(replayed.events == recorded.events)
    #expect(replayed.result.state == recorded.result?.state)
    #expect(replayed.result.reason == .idle)
    #expect(recorded.result?.reason == .idle)
  }

  @Test(arguments: EffectPolicy.allCases)
  func aCancelledRunReplaysItsCancelActionAndTheEffectsEndedWithIt(policy: EffectPolicy) {
    let recorded = recordRun(policy: policy, script: [(0, .go(5)), (0, .go(6))], cancelAfter: 1)
    let replayed = replay(recorded.recording, policy: policy)
    #expect(recorded.recording.happenings.last == .cancelled)
    #expect(replayed.events.contains("apply stop"))
    #expect(replayed.events == recorded.events)
    #expect(replayed.result.reason == .cancelled)
    #expect(replayed.result.state.stopped)
  }

  @Test func theRecordingHoldsWhatEnteredTheRunAndNothingElse() {
    let recorded = recordRun(policy: .latest, script: [(0, .go(1)), (0, .go(2))])
    #expect(
      recorded.recording.happenings == [
        .input(.go(1)), .input(.go(2)), .effectFinished(serial: 1, .cancelled),
        .inputFinished, .effectAction(.got(2), serial: 2), .effectFinished(serial: 2, .finished),
      ])
  }

  @Test func aChangedReducerDivergesFromTheRecording() {
    let recorded = recordRun(policy: .latest, script: racing)
    let replayed = replay(recorded.recording, policy: .parallel)
    #expect(replayed.events != recorded.events)
    let first = zip(recorded.events, replayed.events).first { $0 != $1 }
    #expect(first?.0 == "queue load#2")
    #expect(first?.1 == "start load#2")
  }

  @Test func aReplayRunsNoEffect() {
    let clock = VirtualClock()
    let ran = Recorder<Int>()
    let store = Store<Loads, Act>(initialState: Loads()) { _, action in
      guard case .go(let n) = action else { return .none }
      return .run(name: "work") { _ in ran.append(n) }
    }
    var events: [String] = []
    let result = store.replay(
      [.input(.go(1)), .inputFinished, .effectFinished(serial: 1, .finished)]
    ) { events.append(describe($0)) }
    clock.run()
    #expect(ran.values.isEmpty)
    #expect(events == ["apply go(1)", "start work#1", "end work#1 finished"])
    #expect(result.reason == .idle)
  }

  @Test func aRecordingCutShortEndsItsRunningEffectsAsCancelled() {
    let store = Store<Loads, Act>(
      initialState: Loads(), reducer: loader(clock: VirtualClock(), policy: .latest))
    var events: [String] = []
    let result = store.replay([.input(.go(1))]) { events.append(describe($0)) }
    #expect(events == ["apply go(1)", "start load#1", "end load#1 cancelled"])
    #expect(result.reason == .cancelled)
  }
}
