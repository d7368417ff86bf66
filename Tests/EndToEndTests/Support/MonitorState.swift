/// Everything a `ProcessMonitor` knows about its child, kept behind the monitor's lock.
///
/// Each change (a chunk read, end of file, the exit) is followed by `collectWakeups`, which
/// hands back the continuations that can now be resumed; the monitor resumes them after
/// releasing the lock, so no test code ever runs while the lock is held.
struct MonitorState: Sendable {
  /// A suspended `waitForLine`.
  struct LineWaiter: Sendable {
    let stream: ProcessMonitor.Stream
    let what: String
    let predicate: @Sendable (String) -> Bool
    let continuation: CheckedContinuation<String, any Error>
    /// Lines before this index have been tested already.
    var scanned = 0
  }

  /// Continuations that are ready, with what to resume them with.
  struct Wakeups: Sendable {
    var lines: [(CheckedContinuation<String, any Error>, Result<String, any Error>)] = []
    var exits: [(CheckedContinuation<Termination, any Error>, Termination)] = []

    /// Resumes every ready continuation. Call without holding the lock.
    func resume() {
      for (continuation, result) in lines { continuation.resume(with: result) }
      for (continuation, termination) in exits { continuation.resume(returning: termination) }
    }
  }

  /// The command line, for messages.
  let label: String
  /// When the child was started: the timeline's zero.
  let startedAt: ContinuousClock.Instant
  /// What the test did and saw besides output (signals sent, lines waited for, stdin closed),
  /// with when, for the timeline.
  private(set) var notes: [(at: ContinuousClock.Instant, text: String)] = []
  /// Stdout and stderr lines that a wait matched, by stream and index: what it waited for.
  private var matched: [String: String] = [:]
  var stdout = LineBuffer()
  var stderr = LineBuffer()
  /// Set once the child was reaped.
  var termination: Termination?
  /// When the child was reaped.
  var exitedAt: ContinuousClock.Instant?
  var lineWaiters: [UInt64: LineWaiter] = [:]
  var exitWaiters: [UInt64: CheckedContinuation<Termination, any Error>] = [:]
  private var nextID: UInt64 = 0

  init(label: String, startedAt: ContinuousClock.Instant = .now) {
    self.label = label
    self.startedAt = startedAt
  }

  /// Records something the test did, such as a signal sent, for the timeline.
  mutating func note(_ text: String, at now: ContinuousClock.Instant = .now) {
    notes.append((now, text))
  }

  /// Changes the buffer of one stream in place (a get/set subscript would copy its arrays).
  mutating func update<Result>(
    _ stream: ProcessMonitor.Stream, _ body: (inout LineBuffer) -> Result
  ) -> Result {
    switch stream {
    case .stdout: body(&stdout)
    case .stderr: body(&stderr)
    }
  }

  /// A fresh id for a waiter.
  mutating func makeID() -> UInt64 {
    nextID += 1
    return nextID
  }

  /// True when the child exited and both streams reached end of file: the output is complete.
  var isFinished: Bool { termination != nil && stdout.isClosed && stderr.isClosed }

  /// The command, its status and its whole output as a timeline, for failure messages: each
  /// line with when it arrived (ms since the start), which lines the test waited for, the
  /// signals it sent and when, and when the child exited.
  var transcript: String {
    let status = termination.map { "\($0)" } ?? "still running"
    var entries: [(at: ContinuousClock.Instant, order: Int, text: String)] = []
    for (name, buffer) in [("stdout", stdout), ("stderr", stderr)] {
      for (index, line) in buffer.lines.enumerated() {
        let wait = matched["\(name) \(index)"].map { "   <- waited for \($0)" } ?? ""
        entries.append((buffer.arrivals[index], entries.count, "\(name) | \(line)\(wait)"))
      }
      if let tail = buffer.unterminated {
        entries.append((.now, entries.count, "\(name) | \(tail)  [no newline yet]"))
      }
    }
    for note in notes { entries.append((note.at, entries.count, "-- \(note.text)")) }
    if let exitedAt { entries.append((exitedAt, entries.count, "-- reaped: \(status)")) }
    entries.sort { ($0.at, $0.order) < ($1.at, $1.order) }
    // A flood is cut in the middle: its start and its end explain a failure.
    let limit = 600
    var shown = entries.map { "\(milliseconds(since: startedAt, to: $0.at)) \($0.text)" }
    if shown.count > limit {
      let cut = shown.count - limit
      shown =
        shown.prefix(limit / 3) + ["          … \(cut) entries cut"]
        + shown.suffix(limit - limit / 3)
    }
    return """
      command: \(label)
      status: \(status); stdout \(stdout.lines.count) lines, stderr \(stderr.lines.count) lines
      timeline (ms since start):
      \(shown.joined(separator: "\n"))
      """
  }

  /// `+12.3` style offset, right-aligned, for the timeline.
  private func milliseconds(
    since start: ContinuousClock.Instant, to instant: ContinuousClock.Instant
  )
    -> String
  {
    let (seconds, attoseconds) = (instant - start).components
    let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
    let text = "+" + String(format: "%.1f", value)
    return String(repeating: " ", count: max(0, 9 - text.count)) + text
  }

  /// Removes and returns the waiters that can be answered now.
  mutating func collectWakeups() -> Wakeups {
    var wakeups = Wakeups()
    for id in lineWaiters.keys.sorted() {
      guard var waiter = lineWaiters[id] else { continue }
      let match = update(waiter.stream) {
        $0.consumeFirstLine(where: waiter.predicate, scanned: &waiter.scanned)
      }
      lineWaiters[id] = waiter
      if let line = match {
        let index = (waiter.stream == .stdout ? stdout : stderr).cursor - 1
        matched["\(waiter.stream) \(index)"] = waiter.what
        lineWaiters[id] = nil
        wakeups.lines.append((waiter.continuation, .success(line)))
      } else if update(waiter.stream, { $0.isClosed }) {
        lineWaiters[id] = nil
        let error = HarnessError.streamEnded(
          "\(waiter.what) on \(waiter.stream)", output: transcript)
        wakeups.lines.append((waiter.continuation, .failure(error)))
      }
    }
    if isFinished, let termination {
      wakeups.exits = exitWaiters.values.map { ($0, termination) }
      exitWaiters.removeAll()
    }
    return wakeups
  }
}
