import LoadctlCore

/// Collects a run's effect lifetimes, clock sleeps and events for `--trace` and `--timeline`.
///
/// It listens to the same event stream the renderer prints (so it sees exactly what users see)
/// plus the sleeps reported by ``TracingClock``. Slices are closed when their effect finishes;
/// whatever is still open when the run ends is closed as `unfinished`, so the file is always
/// complete, also after Ctrl-C. Memory is bounded: past ``limit`` effect slices, ``limit`` sleep
/// slices and ``limit`` instant events, further ones are counted, not kept; the trace file says how many
/// (`otherData`: `dropped_slices`, `dropped_instant_events`).
package final class TraceRecorder: Sendable {
  /// One finished span on a track.
  package struct Slice: Sendable {
    package var track: String
    package var name: String
    package var start: Duration
    package var end: Duration
    package var outcome: String
    package var args: [(String, JSONValue)]
    package var isSleep: Bool
  }

  struct Instant: Sendable {
    var name: String
    var at: Duration
    var args: [(String, JSONValue)]
  }

  struct State: Sendable {
    var open: [Int: Slice] = [:]
    var slices: [Slice] = []
    /// How many of `slices` are effects, and how many sleeps: each kind is kept up to the limit.
    var effectSlices = 0
    var sleepSlices = 0
    var droppedSlices = 0
    var instants: [Instant] = []
    var droppedInstants = 0
    var tracks: [String] = []
    var end: Duration = .zero
  }

  /// The most effect slices kept, the most sleep slices, and the most instant events.
  package let limit: Int
  private let state = Locked(State())

  package init(limit: Int = 100_000) { self.limit = limit }

  /// Records one printed event; `args` are its fields, kept for the trace file.
  package func observe(_ event: ObservedEvent, args: [(String, JSONValue)], at time: Duration) {
    state.withLock { state in
      state.end = max(state.end, time)
      switch event {
      case .effectStarted(let serial, let label, let track):
        let track = "effect " + track
        if !state.tracks.contains(track) { state.tracks.append(track) }
        state.open[serial] = Slice(
          track: track, name: "\(label)#\(serial)", start: time, end: time,
          outcome: "unfinished", args: args, isSleep: false)
      case .effectFinished(let serial, let outcome):
        guard var slice = state.open.removeValue(forKey: serial) else { return }
        slice.end = time
        slice.outcome = outcome.name
        slice.args.append(("outcome", .string(slice.outcome)))
        keep(slice, in: &state)
      case .instant(let name):
        guard state.instants.count < limit else {
          state.droppedInstants += 1
          return
        }
        state.instants.append(Instant(name: name, at: time, args: args))
      }
    }
  }

  /// Records a sleep on the run's clock, attributed to the effect that slept (if any).
  package func sleep(from start: Duration, to end: Duration, cancelled: Bool, effect: EffectInfo?) {
    let track = effect.map { "effect " + ($0.id?.name ?? $0.label) } ?? "clock"
    state.withLock { state in
      if !state.tracks.contains(track) { state.tracks.append(track) }
      state.end = max(state.end, end)
      keep(
        Slice(
          track: track, name: "sleep", start: start, end: end,
          outcome: cancelled ? "cancelled" : "finished",
          args: [("outcome", .string(cancelled ? "cancelled" : "finished"))], isSleep: true),
        in: &state)
    }
  }

  /// Keeps a finished slice, or counts it once ``limit`` of its kind (effects, sleeps) are kept:
  /// a long-running effect that ends last (a timer's) is kept however many sleeps came before.
  private func keep(_ slice: Slice, in state: inout State) {
    let kept = slice.isSleep ? state.sleepSlices : state.effectSlices
    guard kept < limit else {
      state.droppedSlices += 1
      return
    }
    if slice.isSleep { state.sleepSlices += 1 } else { state.effectSlices += 1 }
    state.slices.append(slice)
  }

  /// Closes what is still open at `time` and returns every slice, in start order; at the same
  /// start an effect comes before its sleeps, so viewers that break ties by file order nest the
  /// sleep in the effect, not the reverse.
  package func finish(at time: Duration) -> (slices: [Slice], tracks: [String], end: Duration) {
    state.withLock { state in
      state.end = max(state.end, time)
      for (_, var slice) in state.open.sorted(by: { $0.key < $1.key }) {
        slice.end = state.end
        slice.args.append(("outcome", "unfinished"))
        keep(slice, in: &state)
      }
      state.open.removeAll()
      let ordered = state.slices.enumerated().sorted {
        ($0.element.start, $0.element.isSleep ? 1 : 0, $0.offset)
          < ($1.element.start, $1.element.isSleep ? 1 : 0, $1.offset)
      }.map(\.element)
      return (ordered, state.tracks, state.end)
    }
  }

  /// The whole run in Chrome Trace Event Format (Perfetto, `chrome://tracing`).
  package func chromeTrace(at time: Duration) -> String {
    let (slices, tracks, _) = finish(at: time)
    let (instants, dropped, droppedSlices) = state.withLock {
      ($0.instants, $0.droppedInstants, $0.droppedSlices)
    }
    let allTracks = ["actions"] + tracks
    func tid(_ track: String) -> Int { (allTracks.firstIndex(of: track) ?? 0) + 1 }
    var events: [JSONValue] = [
      .object([
        ("ph", "M"), ("name", "process_name"), ("pid", 1), ("tid", 0),
        ("args", .object([("name", "loadctl")])),
      ])
    ]
    for track in allTracks {
      events.append(
        .object([
          ("ph", "M"), ("name", "thread_name"), ("pid", 1), ("tid", .int(tid(track))),
          ("args", .object([("name", .string(track))])),
        ]))
    }
    for slice in slices {
      events.append(
        .object([
          ("ph", "X"), ("name", .string(slice.name)), ("cat", slice.isSleep ? "sleep" : "effect"),
          ("pid", 1), ("tid", .int(tid(slice.track))), ("ts", .double(Self.micros(slice.start))),
          ("dur", .double(Self.micros(slice.end - slice.start))), ("args", .object(slice.args)),
        ]))
    }
    for instant in instants {
      events.append(
        .object([
          ("ph", "i"), ("name", .string(instant.name)), ("cat", "event"), ("s", "t"), ("pid", 1),
          ("tid", 1), ("ts", .double(Self.micros(instant.at))), ("args", .object(instant.args)),
        ]))
    }
    let document: JSONValue = .object([
      ("traceEvents", .array(events)), ("displayTimeUnit", "ms"),
      (
        "otherData",
        .object([
          ("dropped_slices", .int(droppedSlices)), ("dropped_instant_events", .int(dropped)),
        ])
      ),
    ])
    return document.serialized + "\n"
  }

  static func micros(_ duration: Duration) -> Double {
    EventOutput.milliseconds(duration) * 1000
  }
}
