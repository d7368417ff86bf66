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
  var stdout = LineBuffer()
  var stderr = LineBuffer()
  /// Set once the child was reaped.
  var termination: Termination?
  /// When the child was reaped.
  var exitedAt: ContinuousClock.Instant?
  var lineWaiters: [UInt64: LineWaiter] = [:]
  var exitWaiters: [UInt64: CheckedContinuation<Termination, any Error>] = [:]
  private var nextID: UInt64 = 0

  init(label: String) {
    self.label = label
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

  /// The command, its status and the tail of its output, for failure messages.
  var transcript: String {
    let status = termination.map { "\($0)" } ?? "still running"
    return """
      command: \(label)
      status: \(status)
      stdout so far (\(stdout.lines.count) lines):
      \(stdout.tail())
      stderr so far:
      \(stderr.tail())
      """
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
