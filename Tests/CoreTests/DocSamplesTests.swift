import Foundation
import LoadctlCore
import LoadctlTestKit
import Synchronization
import Testing

// The code samples of Sources/Core/LoadctlCore.docc, as the articles show them, so that the
// build checks that they compile and the tests that they do what the articles say.

// WritingAFlow.md: state and actions, the reducer.
private struct Counter: Sendable {
  struct State: Equatable, Sendable {
    var count = 0
    var saved: Int?
  }

  enum Action: Equatable, Sendable {
    case increment
    case decrement
    case saved(Int)  // sent by the save effect
  }

  static let saveID: EffectID = "save"
  let clock: any Clock<Duration>
}

extension Counter {
  func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .increment, .decrement:
      state.count += action == .increment ? 1 : -1
      return .run { [clock, count = state.count] send in
        try await clock.sleep(for: .seconds(1))
        send(.saved(count))
      }
      .cancellable(id: Self.saveID, policy: .latest)
    case .saved(let value):
      state.saved = value
      return .none
    }
  }
}

// RecordingAndReplay.md: keeping a recording in a file, with the action `Codable`.
extension Counter.Action: Codable {}

private func runRecorded(
  inputs: AsyncStream<Counter.Action>, to path: String, clock: VirtualClock
) async throws {
  let journal = try StoreFileJournal<Counter.Action>(path: path, clock: clock) {
    try Array(JSONEncoder().encode($0))
  }
  let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock).reduce)
  _ = await store.run(inputs: inputs, journal: journal) { _ in }
  try journal.close()
}

// ComingFromTCA.md: the Timers case study.
private struct Timers: Sendable {
  struct State: Equatable, Sendable {
    var isTimerActive = false
    var secondsElapsed = 0
  }
  enum Action: Equatable, Sendable { case timerTicked, toggleTimerButtonTapped }
  enum CancelID { case timer }

  let clock: any Clock<Duration>

  func reduce(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .timerTicked:
      state.secondsElapsed += 1
      return .none
    case .toggleTimerButtonTapped:
      state.isTimerActive.toggle()
      return .run { [isTimerActive = state.isTimerActive, clock] send in
        guard isTimerActive else { return }
        for await _ in ClockTimer(interval: .seconds(1), clock: clock) { send(.timerTicked) }
      }
      .cancellable(id: CancelID.timer, policy: .replace)
    }
  }
}

@Suite struct DocSamplesTests {
  // WritingAFlow.md: testing with TestStore on VirtualClock.
  @Test func aBurstOfChangesSavesOnce() {
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock, reducer: Counter(clock: clock).reduce)
    store.send(.increment) { $0.count = 1 }
    clock.advance(by: .milliseconds(500))
    store.send(.increment) { $0.count = 2 }  // latest: the first save is cancelled
    clock.advance(by: .seconds(1))
    store.receive(.saved(2)) { $0.saved = 2 }
  }

  // RecordingAndReplay.md.
  @Test func aChangedReducerDivergesFromTheRecording() async {
    // The counter of <doc:WritingAFlow>, typed at: two changes, half a second apart.
    let clock = VirtualClock()
    let recording = StoreRecording<Counter.Action>()
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock).reduce)
    let (typing, input) = AsyncStream<Counter.Action>.makeStream()
    let recorded = Mutex<[String]>([])
    let task = clock.launch {
      await store.run(inputs: typing, journal: recording) { event in
        recorded.withLock { $0.append("\(event)") }
      }
    }
    input.yield(.increment)
    clock.advance(by: .milliseconds(500))
    input.yield(.increment)
    input.finish()
    clock.run()
    _ = await task.value

    // The same happenings, applied to a reducer that counts an increment twice.
    let changed = Store(initialState: Counter.State()) { state, action in
      let effect = Counter(clock: clock).reduce(&state, action)
      if action == .increment { state.count += 1 }
      return effect
    }
    var replayed: [String] = []
    _ = changed.replay(recording.happenings) { replayed.append("\($0)") }
    #expect(replayed != recorded.withLock { $0 })
  }

  // RecordingAndReplay.md: a run written to a file (here on virtual time), replayed.
  @Test func theRecordedRunReplays() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("doc-sample-\(UUID().uuidString).jsonl").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recordingClock = VirtualClock()
    let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
    let run = recordingClock.launch {
      try? await runRecorded(inputs: inputs, to: path, clock: recordingClock)
    }
    input.yield(.increment)
    recordingClock.advance(by: .milliseconds(300))
    input.yield(.increment)
    input.finish()
    recordingClock.run()
    await run.value

    let recording = try StoreRecordingFile.read(atPath: path) {
      try JSONDecoder().decode(RecordedHappening<Counter.Action>.self, from: Data($0))
    }
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock, reducer: Counter(clock: clock).reduce)
    store.replay(recording)
    #expect(store.state.saved == store.state.count)
    #expect(store.state.saved == 2)
  }

  // ComingFromTCA.md.
  @Test func timerTicks() {
    let clock = VirtualClock()
    let store = TestStore(initialState: Timers.State(), clock: clock) {
      Timers(clock: clock).reduce(&$0, $1)
    }
    store.send(.toggleTimerButtonTapped) { $0.isTimerActive = true }
    clock.advance(by: .seconds(2))
    store.receive(.timerTicked) { $0.secondsElapsed = 1 }
    store.receive(.timerTicked) { $0.secondsElapsed = 2 }
    store.send(.toggleTimerButtonTapped) { $0.isTimerActive = false }
  }
}
