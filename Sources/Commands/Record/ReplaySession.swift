import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One `loadctl replay`: the recording being replayed, the virtual clock it runs on, and the
/// check of every event the replay prints against the event the run printed at that point.
///
/// The check stops at the first difference (a *divergence*): the replay then stops feeding the
/// flow, and ``report(at:)`` says where, what was recorded and what was replayed.
package final class ReplaySession: Sendable {
  package let recording: Recording
  /// The replay's clock: every recorded time is a moment on it.
  package let clock: VirtualClock
  /// `--until`: the replay stops at this moment and prints the flow's state there.
  package let until: Duration?

  /// Where the replay and the recording part.
  package struct Divergence: Sendable {
    /// When, on the run's clock.
    package var time: Duration
    /// The event's number (its `seq`).
    package var number: Int
    /// What the recording holds there (`nil`: it holds no more events).
    package var recorded: Recording.Event?
    /// What the replay printed there (`nil`: it printed no more).
    package var replayed: [UInt8]?
    /// The events both printed just before it, oldest first.
    package var before: [[UInt8]]
    /// A different end, when every event matched but the process ended otherwise.
    package var ending: (recorded: Int32, replayed: Int32)?
  }

  private struct State {
    var next = 0
    var divergence: Divergence?
    var recent: [[UInt8]] = []
    var shutdown: ShutdownReason?
    var failure: String?
    var stoppedEarly = false
    var interruption: ShutdownReason?
    var ownOutputProblem: String?
  }

  private let state = Locked(State())

  package init(recording: Recording, clock: VirtualClock = VirtualClock(), until: Duration? = nil) {
    self.recording = recording
    self.clock = clock
    self.until = until
  }

  /// Whether the replay stopped at `--until`: what the recording holds after it is not
  /// checked, and the run prints no `end`.
  package var stoppedEarly: Bool { state.withLock { $0.stoppedEarly } }

  /// The replay reached `--until`: checking ends here, so the `state` event it prints is not
  /// taken for a divergence.
  package func stopEarly() {
    state.withLock { $0.stoppedEarly = true }
  }

  /// Whether the replay must stop feeding the flow: it diverged, or the recording could not be
  /// applied.
  package var hasStopped: Bool {
    state.withLock { $0.divergence != nil || $0.failure != nil || $0.interruption != nil }
  }

  /// Why the replay itself is being stopped from outside (a signal to it, its stdout closed or
  /// failing), if it is: it stops where it is, checks and blames nothing after that moment, and
  /// ends as a run stopped that way ends.
  package var interruption: ShutdownReason? { state.withLock { $0.interruption } }

  /// The replay itself is being stopped from outside (see ``interruption``).
  package func interrupt(_ reason: ShutdownReason) {
    state.withLock { $0.interruption = $0.interruption ?? reason }
  }

  /// What the replay's own output (its `--trace` file) could not write, if it could not: said
  /// on the replay's stderr, which `--check` keeps, and the replay ends with 74 as a run whose
  /// output failed (see ``interruption``).
  package var ownOutputProblem: String? { state.withLock { $0.ownOutputProblem } }

  /// The replay's own output failed: nothing after this is checked (see ``ownOutputProblem``).
  package func ownOutputFailed(_ problem: String) {
    state.withLock { state in
      state.ownOutputProblem = state.ownOutputProblem ?? problem
      state.interruption = state.interruption ?? .writeFailed(EIO)
    }
  }

  /// The first divergence, if there was one.
  package var divergence: Divergence? { state.withLock { $0.divergence } }

  /// Why the recording could not be applied (a line no action reads), if it could not.
  package var failure: String? { state.withLock { $0.failure } }

  /// How many recorded events the replay matched.
  package var matched: Int { state.withLock { $0.next } }

  /// Why the recorded run was stopped from outside, once the replay has reached it.
  package var shutdown: ShutdownReason? {
    get { state.withLock { $0.shutdown } }
  }

  /// The replay reached the recorded shutdown.
  package func stopping(_ reason: ShutdownReason) {
    state.withLock { $0.shutdown = $0.shutdown ?? reason }
  }

  /// A recorded line could not be applied: the replay stops and ends with status 65, unless it
  /// had already diverged (a replay stopped at a divergence leaves later lines unapplied).
  package func fail(line: Int, _ message: String) {
    state.withLock { state in
      guard state.interruption == nil, state.divergence == nil else { return }
      state.failure =
        state.failure ?? "recording '\(recording.path)' line \(line): \(message)"
    }
  }

  /// Checks one event the replay printed (its JSON line) against the recording.
  package func check(_ printed: PrintedEvent) {
    let line = Array(printed.line)
    state.withLock { state in
      guard state.divergence == nil, state.failure == nil, !state.stoppedEarly,
        state.interruption == nil
      else { return }
      let index = state.next
      guard index < recording.events.count else {
        // A recording cut short holds no more: what follows cannot be checked.
        guard recording.end != nil else { return }
        state.divergence = divergence(
          number: index + 1, recorded: nil, replayed: line, before: state.recent)
        return
      }
      let recorded = recording.events[index]
      guard recorded.bytes == line || Self.sameStart(recorded.bytes, line) else {
        state.divergence = divergence(
          number: index + 1, recorded: recorded, replayed: line, before: state.recent)
        return
      }
      state.next += 1
      state.recent.append(line)
      if state.recent.count > 3 { state.recent.removeFirst() }
    }
  }

  /// Checks the end: every recorded event was printed, and the process ends as it did.
  ///
  /// A recording cut short (no `end` line) is not checked here: its replay makes up no final
  /// transition and no `end`, so the events the recording holds past what was replayed (the
  /// run's `end`, say) are not printed, and the replay ends 65 for the missing end instead.
  package func checkEnd(_ end: ProcessEnd) {
    state.withLock { state in
      guard state.divergence == nil, state.failure == nil, !state.stoppedEarly,
        recording.end != nil
      else { return }
      if state.next < recording.events.count {
        state.divergence = divergence(
          number: state.next + 1, recorded: recording.events[state.next], replayed: nil,
          before: state.recent)
        return
      }
      guard let recorded = recording.end, recorded.exit != end.status else { return }
      var ending = divergence(number: state.next, recorded: nil, replayed: nil, before: [])
      ending.ending = (recorded.exit, end.status)
      state.divergence = ending
    }
  }

  private func divergence(
    number: Int, recorded: Recording.Event?, replayed: [UInt8]?, before: [[UInt8]]
  ) -> Divergence {
    Divergence(
      time: clock.now.offset, number: number, recorded: recorded, replayed: replayed,
      before: before, ending: nil)
  }

  /// Two `start` events that differ only in the version of loadctl that printed them: a
  /// recording replayed by a newer build is checked by what it does.
  private static func sameStart(_ recorded: [UInt8], _ replayed: [UInt8]) -> Bool {
    guard let old = try? JSONParser.parse(bytes: recorded, maxDepth: Recording.maxDepth),
      let new = try? JSONParser.parse(bytes: replayed, maxDepth: Recording.maxDepth),
      old["event"] == .string("start"),
      new["event"] == .string("start"), case .object(let oldPairs) = old,
      case .object(let newPairs) = new
    else { return false }
    let strip = { (pairs: [(String, JSONValue)]) in pairs.filter { $0.0 != "loadctl_version" } }
    return JSONValue.object(strip(oldPairs)) == .object(strip(newPairs))
  }

  /// The divergence report, for stderr: where, both events with the fields that differ, and
  /// the events before; an event is quoted up to ``eventLimit`` characters, a differing value
  /// up to ``Swift/String/shortened(to:)``'s default, so that long values keep it short.
  package static func report(_ divergence: Divergence, path: String) -> String {
    let time = EventOutput.formatElapsed(divergence.time).trimmingSpaces
    if let (recorded, replayed) = divergence.ending {
      let path = path.escapingControlCharacters
      return
        "replay diverged from '\(path)' at its end (\(time)): the run ended with status "
        + "\(recorded), the replay with \(replayed)\n"
    }
    let path = path.escapingControlCharacters
    var text = "replay diverged from '\(path)' at \(time), at event \(divergence.number)"
    if let recorded = divergence.recorded { text += " (recording line \(recorded.line))" }
    text += ":\n"
    let recordedText = divergence.recorded.map { String(decoding: $0.bytes, as: UTF8.self) }
    let replayedText = divergence.replayed.map { String(decoding: $0, as: UTF8.self) }
    let quoted = { (event: String) in event.shortened(to: eventLimit).escapingControlCharacters }
    let recordedShown = recordedText.map(quoted) ?? "(no more events: the run printed nothing here)"
    let replayedShown =
      replayedText.map(quoted) ?? "(no more events: the replay printed nothing here)"
    text += "  recorded: \(recordedShown)\n"
    text += "  replayed: \(replayedShown)\n"
    if let recordedText, let replayedText,
      let old = try? JSONParser.parse(recordedText, maxDepth: Recording.maxDepth),
      let new = try? JSONParser.parse(replayedText, maxDepth: Recording.maxDepth)
    {
      let fields = differences(old, new, path: "")
      if !fields.isEmpty {
        text +=
          "  differs:  \(fields.prefix(8).joined(separator: ", ").escapingControlCharacters)\n"
      }
    }
    if !divergence.before.isEmpty {
      text += "  before it:\n"
      for line in divergence.before {
        text += "    \(quoted(String(decoding: line, as: UTF8.self)))\n"
      }
    }
    return text
  }

  /// The most of an event a report quotes: a whole event of a usual size.
  static let eventLimit = 1000

  /// The paths of the fields whose values differ, `name: recorded → replayed`, each
  /// ``Swift/String/shortened(to:)``.
  static func differences(_ old: JSONValue, _ new: JSONValue, path: String) -> [String] {
    guard old != new else { return [] }
    if case .object(let oldPairs) = old, case .object(let newPairs) = new {
      // Dictionaries, not scans: a recorded object may have tens of thousands of keys. The first
      // of a repeated key counts, as `JSONValue`'s subscript reads it.
      let (oldValues, newValues) = (firstValues(oldPairs), firstValues(newPairs))
      var seen: Set<String> = []
      let keys = (oldPairs + newPairs).map(\.0).filter { seen.insert($0).inserted }
      return keys.flatMap { key in
        let name = path.isEmpty ? key : "\(path).\(key)"
        switch (oldValues[key], newValues[key]) {
        case (let a?, let b?): return differences(a, b, path: name)
        case (let a?, nil): return ["\(name.shortened()): \(a.serialized.shortened()) → (absent)"]
        case (nil, let b?): return ["\(name.shortened()): (absent) → \(b.serialized.shortened())"]
        case (nil, nil): return []
        }
      }
    }
    let name = path.isEmpty ? "value" : path.shortened()
    return ["\(name): \(old.serialized.shortened()) → \(new.serialized.shortened())"]
  }

  /// Each key's first value among `pairs`.
  private static func firstValues(_ pairs: [(String, JSONValue)]) -> [String: JSONValue] {
    var values: [String: JSONValue] = [:]
    for (key, value) in pairs where values[key] == nil { values[key] = value }
    return values
  }
}

extension ProcessEnd {
  /// The status a shell sees.
  package var status: Int32 {
    switch self {
    case .exit(let status): status
    case .signal(let signal): signal.shellStatus
    case .brokenPipe: 141
    }
  }
}

extension String {
  /// The text cut after `limit` characters, saying how many bytes were left out
  /// (`AAAA… (99999800 more bytes)`): what a report quotes of a recording, whose lines and
  /// values may be long.
  func shortened(to limit: Int = 200) -> String {
    guard utf8.count > limit else { return self }
    let kept = prefix(limit)
    guard kept.endIndex < endIndex else { return self }
    return "\(kept)… (\(utf8.count - kept.utf8.count) more bytes)"
  }
}
