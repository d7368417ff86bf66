import CounterFlow
import Foundation
import LoadctlCore
import LoadctlTestKit
import Synchronization
import Testing

/// Recording a run of the counter and replaying it: the same events, with no effect run again;
/// a different save delay diverges from the recording.
@Suite struct ReplayTests {
  /// Runs the counter on `clock` over a burst of changes, recording its happenings.
  private static func record() async -> (
    events: [String], recording: StoreRecording<Counter.Action>
  ) {
    let clock = VirtualClock()
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock).reduce)
    let recording = StoreRecording<Counter.Action>()
    let events = Mutex<[String]>([])
    let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
    let task = clock.launch {
      await store.run(inputs: inputs, journal: recording) { event in
        events.withLock { $0.append(describe(event)) }
      }
    }
    input.yield(.increment)
    clock.drain()
    clock.advance(by: .milliseconds(500))
    input.yield(.increment)  // latest: the first save is cancelled
    input.finish()
    clock.run()
    _ = await task.value
    return (events.withLock { $0 }, recording)
  }

  @Test func aReplayReportsWhatTheRunReported() async {
    let (events, recording) = await Self.record()
    let store = Store(
      initialState: Counter.State(), reducer: Counter(clock: VirtualClock()).reduce)
    var replayed: [String] = []
    let result = store.replay(recording.happenings) { replayed.append(describe($0)) }
    #expect(events.contains("start save"))
    #expect(replayed == events)
    #expect(result.state.saved == 2)
  }

  @Test func aChangedReducerDivergesFromTheRecording() async {
    let (events, recording) = await Self.record()
    // Without `latest`'s cancellation the first save would not have been cancelled by the
    // second increment: a replay against a reducer that saves at once parts at its first effect.
    let changed = Store<Counter.State, Counter.Action>(initialState: Counter.State()) {
      state, action in
      switch action {
      case .increment: state.count += 1
      case .decrement: state.count -= 1
      case .saved(let value): state.saved = value
      }
      return .none
    }
    var replayed: [String] = []
    _ = changed.replay(recording.happenings) { replayed.append(describe($0)) }
    #expect(replayed != events)
    #expect(replayed.first == events.first)
  }
}

/// A recording of a real run of the program, kept with the tests and replayed on virtual time.
@Suite struct RecordedRunTests {
  /// Written by `swift run counter-flow --record Tests/CounterFlowTests/Recordings/burst.jsonl`:
  /// four changes 20 ms apart on the continuous clock, then the one save 100 ms later.
  static let burst = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Recordings/burst.jsonl").path

  static func read() throws -> [RecordedHappening<Counter.Action>] {
    try StoreRecordingFile.read(atPath: burst) {
      try JSONDecoder().decode(RecordedHappening<Counter.Action>.self, from: Data($0))
    }
  }

  @Test func theRecordedRunReplaysWithTheSameEffectsOnVirtualTime() throws {
    let recording = try Self.read()
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock,
      reducer: Counter(clock: clock, saveDelay: .milliseconds(100)).reduce)
    store.replay(recording)
    #expect(store.state.count == 2)
    #expect(store.state.saved == 2)
    store.finish()
  }

  @Test func aDifferentSaveDelayDivergesFromTheRecordedRun() throws {
    let recording = try Self.read()
    let clock = VirtualClock()
    let store = TestStore(
      initialState: Counter.State(), clock: clock,
      reducer: Counter(clock: clock, saveDelay: .milliseconds(300)).reduce)
    withKnownIssue {
      store.replay(recording)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the store: effect 4 sent saved(2) at") }
    }
    store.finish()
  }
}

/// One line per event: `apply ACTION`, `start LABEL`, `end LABEL OUTCOME`.
private func describe(_ event: StoreEvent<Counter.State, Counter.Action>) -> String {
  switch event {
  case .transition(let action, _, _, _): "apply \(action)"
  case .ignored(let action, let reason, _): "ignore \(action): \(reason)"
  case .effectStarted(let info): "start \(info.label)"
  case .effectQueued(let info): "queue \(info.label)"
  case .effectDropped(let info): "drop \(info.label)"
  case .effectFinished(let info, let outcome): "end \(info.label) \(outcome)"
  }
}
