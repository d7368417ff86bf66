import Foundation
import LoadctlCore
import LoadctlTestKit
import Synchronization
import Testing

// A counter whose save waits a second on the clock, under an enum id.

private enum Tap: Codable, Equatable, Sendable {
  case increment
  case decrement
  case saved(Int)
}

private struct Tally: Equatable, Sendable {
  var count = 0
  var saved: Int?
}

private enum CancelID: Hashable, Sendable { case save }

private func tally(clock: VirtualClock) -> Store<Tally, Tap>.Reducer {
  { state, action in
    switch action {
    case .increment, .decrement:
      state.count += action == .increment ? 1 : -1
      return .run { [count = state.count] send in
        try await clock.sleep(for: .seconds(1))
        send(.saved(count))
      }
      .cancellable(id: CancelID.save, policy: .latest)
    case .saved(let value):
      state.saved = value
      return .none
    }
  }
}

private func encode(_ line: RecordedHappening<Tap>) throws -> [UInt8] {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return Array(try encoder.encode(line))
}

private func decode(_ bytes: [UInt8]) throws -> RecordedHappening<Tap> {
  try JSONDecoder().decode(RecordedHappening<Tap>.self, from: Data(bytes))
}

private func temporaryPath(_ name: String) -> String {
  FileManager.default.temporaryDirectory.appendingPathComponent(
    "store-recording-\(UUID().uuidString)-\(name)"
  ).path
}

/// Records a run of the tally on a virtual clock to a file: three changes, the last two
/// cancelling the save before them, then the one save.
private func recordRun() async throws -> String {
  let path = temporaryPath("run.jsonl")
  let clock = VirtualClock()
  let journal = try StoreFileJournal<Tap>(path: path, clock: clock, encode: encode)
  let store = Store(initialState: Tally(), reducer: tally(clock: clock))
  let (inputs, input) = AsyncStream<Tap>.makeStream()
  let task = clock.launch { await store.run(inputs: inputs, journal: journal) { _ in } }
  input.yield(.increment)
  clock.advance(by: .milliseconds(500))
  input.yield(.increment)
  clock.advance(by: .milliseconds(300))
  input.yield(.decrement)
  input.finish()
  clock.run()
  #expect(await task.value.state == Tally(count: 1, saved: 1))
  try journal.close()
  return path
}

/// The issues `body` records, taken as known issues; the test fails when it records none.
private func issues(_ body: () -> Void) -> [String] {
  let messages = Mutex<[String]>([])
  withKnownIssue {
    body()
  } matching: { issue in
    messages.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
    return true
  }
  return messages.withLock { $0 }
}

@Suite struct StoreRecordingFileTests {
  @Test func everyHappeningRoundTripsThroughJSON() throws {
    let lines: [RecordedHappening<Tap>] = [
      .init(time: .zero, .input(.increment)),
      .init(time: .nanoseconds(1_500), .effectAction(.saved(3), serial: 2)),
      .init(time: .nanoseconds(2_000), .effectFinished(serial: 2, .finished)),
      .init(time: .nanoseconds(2_000), .effectFinished(serial: 3, .cancelled)),
      .init(time: .seconds(2), .effectFinished(serial: 4, .failed("boom"))),
      .init(time: .seconds(3), .cancelRequest("save")),
      .init(time: .seconds(4), .inputFinished),
      .init(time: .seconds(5), .cancelled),
    ]
    for line in lines { #expect(try decode(encode(line)) == line) }
    // The members loadctl's `--record` writes for the same happenings.
    #expect(
      String(decoding: try encode(lines[4]), as: UTF8.self)
        == #"{"effect":4,"finished":{"failed":"boom"},"t":2000000000}"#)
    #expect(
      String(decoding: try encode(lines[5]), as: UTF8.self)
        == #"{"cancel_request":"save","t":3000000000}"#)
    #expect(
      String(decoding: try encode(lines[6]), as: UTF8.self)
        == #"{"input_finished":true,"t":4000000000}"#)
  }

  @Test func aRunRecordedToAFileReplaysInATestStoreWithoutAFailure() async throws {
    let path = try await recordRun()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.hasPrefix(StoreRecordingFile.header + "\n"))
    let recording = try StoreRecordingFile.read(atPath: path, decode: decode)
    #expect(recording.first == .init(time: .zero, .input(.increment)))
    #expect(
      recording.contains(.init(time: .milliseconds(1_800), .effectAction(.saved(1), serial: 3))))

    let clock = VirtualClock()
    let store = TestStore(initialState: Tally(), clock: clock, reducer: tally(clock: clock))
    store.replay(recording)
    #expect(store.state == Tally(count: 1, saved: 1))
    #expect(clock.now.offset == .milliseconds(1_800))
    store.send(.increment) { $0.count = 2 }
    clock.advance(by: .seconds(1))
    store.receive(.saved(2)) { $0.saved = 2 }
    store.finish()
  }

  @Test func aTamperedRecordingFailsAtItsFirstDivergence() async throws {
    let path = try await recordRun()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var recording = try StoreRecordingFile.read(atPath: path, decode: decode)
    let index = try #require(
      recording.firstIndex { $0.happening == .effectAction(.saved(1), serial: 3) })
    recording[index].happening = .effectAction(.saved(5), serial: 3)
    recording.append(.init(time: .seconds(9), .input(.increment)))

    let clock = VirtualClock()
    let store = TestStore(initialState: Tally(), clock: clock, reducer: tally(clock: clock))
    let found = issues { store.replay(recording) }
    #expect(
      found == [
        "replay diverged at happening \(index + 1) (file line \(index + 2)), at 1.8 seconds: "
          + "effect 3 sent saved(5)\n  the store: effect 3 sent saved(1)"
      ])
    // It stopped there: the increment after it was not sent.
    #expect(store.state == Tally(count: 1, saved: 1))
    store.finish()
  }

  @Test func anEffectHappeningLaterThanRecordedFailsBeyondTheLateness() async throws {
    let path = try await recordRun()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var recording = try StoreRecordingFile.read(atPath: path, decode: decode)
    let index = try #require(
      recording.firstIndex { $0.happening == .effectAction(.saved(1), serial: 3) })
    for later in index..<recording.count { recording[later].time += .milliseconds(1_200) }

    let clock = VirtualClock()
    let store = TestStore(initialState: Tally(), clock: clock, reducer: tally(clock: clock))
    let found = issues { store.replay(recording) }
    #expect(
      found == [
        "replay diverged at happening \(index + 1) (file line \(index + 2)), at 3.0 seconds: "
          + "effect 3 sent saved(1)\n  the store: effect 3 sent saved(1) at 1.8 seconds"
      ])
    store.finish()

    // Within the lateness, it matches.
    let lenientClock = VirtualClock()
    let lenient = TestStore(
      initialState: Tally(), clock: lenientClock, reducer: tally(clock: lenientClock))
    lenient.replay(recording, lateness: .seconds(2))
    #expect(lenient.state == Tally(count: 1, saved: 1))
    lenient.finish()
  }

  @Test func aReplayFailsWhenTheStoreDoesWhatTheRecordingDoesNotHold() throws {
    // A recording whose save never came: the store's effect sends one when the clock moves.
    let recording: [RecordedHappening<Tap>] = [
      .init(time: .zero, .input(.increment)),
      .init(time: .seconds(2), .input(.decrement)),
    ]
    let clock = VirtualClock()
    let store = TestStore(initialState: Tally(), clock: clock, reducer: tally(clock: clock))
    let found = issues { store.replay(recording) }
    #expect(
      found == [
        "replay diverged at happening 2 (file line 3), at 2.0 seconds: input decrement\n"
          + "  the store: effect 1 sent saved(1) first"
      ])
    store.finish()
  }

  @Test(
    arguments: [
      ("", nil, "it is empty"),
      ("{\"t\":0,\"input_finished\":true}\n", 1, "not a store recording"),
      ("{\"loadctl_recording\":2,\"command\":\"counter\"}\n", 1, "not a store recording"),
      ("{\"loadctl_store_recording\":2}\n", 1, "format 2 is later than this LoadctlCore reads (1)"),
      (
        "{\"loadctl_store_recording\":1}\n{\"t\":5,\"cancelled\":true}\n{\"t\":4,\"cancelled\":true}\n",
        3, "before the line above's"
      ),
      ("{\"loadctl_store_recording\":1}\n{\"t\":0,\"effect\":1}\n", 2, "exactly one of"),
      ("{\"loadctl_store_recording\":1}\n{\"t\":0,\"cancelled\":false}\n", 2, "must be true"),
    ] as [(String, Int?, String)])
  func aBadRecordingIsRefusedWithItsLine(contents: String, line: Int?, problem: String) throws {
    let path = temporaryPath("bad.jsonl")
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let error = #expect(throws: StoreRecordingError.self) {
      try StoreRecordingFile.read(atPath: path, decode: decode)
    }
    #expect(error?.line == line)
    #expect(error?.description.contains(problem) == true, "\(String(describing: error))")
  }

  @Test func aLastLineCutShortIsNotRead() throws {
    let path = temporaryPath("torn.jsonl")
    try "{\"loadctl_store_recording\":1}\n{\"t\":0,\"input\":\"incr"
      .write(toFile: path, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(try StoreRecordingFile.read(atPath: path, decode: decode).isEmpty)
  }

  @Test func loadctlsHappeningLinesDecodeWithAnActionThatReadsItsActions() throws {
    // The happening lines of docs/recording.md's sample recording of `loadctl counter`.
    struct Named: Codable, Equatable, Sendable { var action: String }
    let lines = [
      #"{"t":1211434,"input":{"action":"delayed_increment"}}"#,
      #"{"t":103144214,"input_finished":true}"#,
      #"{"t":201988120,"effect":1,"action":{"action":"increment_response"}}"#,
      #"{"t":202211547,"effect":1,"finished":"finished"}"#,
    ]
    let decoded = try lines.map {
      try JSONDecoder().decode(RecordedHappening<Named>.self, from: Data($0.utf8))
    }
    #expect(
      decoded == [
        .init(time: .nanoseconds(1_211_434), .input(Named(action: "delayed_increment"))),
        .init(time: .nanoseconds(103_144_214), .inputFinished),
        .init(
          time: .nanoseconds(201_988_120),
          .effectAction(Named(action: "increment_response"), serial: 1)),
        .init(time: .nanoseconds(202_211_547), .effectFinished(serial: 1, .finished)),
      ])
  }

  @Test func aCancelRequestReadByNameCancelsTheEffectUnderTheIdOfThatName() throws {
    // As read from a file: the enum id `CancelID.save` is recorded by its name.
    let happenings = try [
      RecordedHappening<Tap>(time: .zero, .input(.increment)),
      .init(time: .zero, .cancelRequest(EffectID(CancelID.save))),
      .init(time: .seconds(1), .effectAction(.saved(1), serial: 1)),
      .init(time: .seconds(1), .effectFinished(serial: 1, .finished)),
    ].map { try decode(encode($0)).happening }
    #expect(happenings[1] == .cancelRequest("save"))
    let store = Store(initialState: Tally(), reducer: tally(clock: VirtualClock()))
    var events: [String] = []
    let result = store.replay(happenings) { events.append(describe($0)) }
    #expect(result.state == Tally(count: 1, saved: nil))
    #expect(events == ["apply increment", "start save#1", "end save#1 cancelled"])
  }
}
