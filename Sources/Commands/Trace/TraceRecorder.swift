import LoadctlCore

/// Collects a run's effect lifetimes, clock sleeps and events for `--trace` and `--timeline`.
///
/// It listens to the same event stream the renderer prints (so it sees exactly what users see)
/// plus the sleeps reported by ``TracingClock``. Slices are closed when their effect finishes;
/// whatever is still open when the run ends is closed as `unfinished`, so the file is always
/// complete, also after Ctrl-C. Memory is bounded: past ``limit`` instant events, further ones are
/// counted, not kept.
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
    var instants: [Instant] = []
    var droppedInstants = 0
    var tracks: [String] = []
    var end: Duration = .zero
  }

  /// The most instant events kept (effects and sleeps are always kept).
  package let limit: Int
  private let state = Locked(State())

  package init(limit: Int = 100_000) { self.limit = limit }

  /// Records one printed event.
  package func observe(_ event: String, _ fields: [(String, JSONValue)], at time: Duration) {
    let field = { (key: String) in fields.first { $0.0 == key }?.1 }
    state.withLock { state in
      state.end = max(state.end, time)
      switch event {
      case "effect_started":
        guard case .int(let serial)? = field("serial") else { return }
        let track = TraceRecorder.trackName(field("id") ?? field("effect"))
        if !state.tracks.contains(track) { state.tracks.append(track) }
        let name = TraceRecorder.text(field("effect")) + "#\(serial)"
        state.open[serial] = Slice(
          track: track, name: name, start: time, end: time, outcome: "unfinished",
          args: fields, isSleep: false)
      case "effect_finished":
        guard case .int(let serial)? = field("serial"), var slice = state.open[serial] else {
          return
        }
        state.open[serial] = nil
        slice.end = time
        slice.outcome = TraceRecorder.text(field("outcome"))
        slice.args.append(("outcome", .string(slice.outcome)))
        state.slices.append(slice)
      default:
        guard state.instants.count < limit else {
          state.droppedInstants += 1
          return
        }
        state.instants.append(
          Instant(name: TraceRecorder.instantName(event, field), at: time, args: fields))
      }
    }
  }

  /// Records a sleep on the run's clock, attributed to the effect that slept (if any).
  package func sleep(from start: Duration, to end: Duration, cancelled: Bool, effect: EffectInfo?) {
    let track = effect.map { TraceRecorder.trackName(.string($0.id?.name ?? $0.label)) } ?? "clock"
    state.withLock { state in
      if !state.tracks.contains(track) { state.tracks.append(track) }
      state.end = max(state.end, end)
      state.slices.append(
        Slice(
          track: track, name: "sleep", start: start, end: end,
          outcome: cancelled ? "cancelled" : "finished",
          args: [("outcome", .string(cancelled ? "cancelled" : "finished"))], isSleep: true))
    }
  }

  /// Closes what is still open at `time` and returns every slice, in start order.
  package func finish(at time: Duration) -> (slices: [Slice], tracks: [String], end: Duration) {
    state.withLock { state in
      state.end = max(state.end, time)
      for (_, var slice) in state.open.sorted(by: { $0.key < $1.key }) {
        slice.end = state.end
        slice.args.append(("outcome", "unfinished"))
        state.slices.append(slice)
      }
      state.open.removeAll()
      let ordered = state.slices.enumerated().sorted {
        ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
      }.map(\.element)
      return (ordered, state.tracks, state.end)
    }
  }

  /// The whole run in Chrome Trace Event Format (Perfetto, `chrome://tracing`).
  package func chromeTrace(at time: Duration) -> String {
    let (slices, tracks, _) = finish(at: time)
    let (instants, dropped) = state.withLock { ($0.instants, $0.droppedInstants) }
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
      ("otherData", .object([("dropped_instant_events", .int(dropped))])),
    ])
    return document.serialized + "\n"
  }

  static func micros(_ duration: Duration) -> Double {
    EventOutput.milliseconds(duration) * 1000
  }

  static func trackName(_ value: JSONValue?) -> String {
    "effect " + text(value)
  }

  static func text(_ value: JSONValue?) -> String {
    if case .string(let text)? = value { return text }
    return value?.serialized ?? "?"
  }

  static func instantName(_ event: String, _ field: (String) -> JSONValue?) -> String {
    guard event == "transition" || event == "ignored" else { return event }
    let action = text(field("action"))
    if event == "ignored" { return "\(action) ignored" }
    let from = field("from")?["state"].map { text($0) }
    let to = field("to")?["state"].map { text($0) }
    guard let from, let to else { return action }
    return "\(action): \(from) → \(to)"
  }
}
