import LoadctlCore
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The time of the happening an event belongs to, in a recorded run (see ``RunRecorder``).
///
/// Set around each step a recorded run applies, and around what it prints outside steps, so that
/// every event of a recorded run carries the time of its happening, as its replay, which applies
/// that happening at that time on virtual time, does.
///
/// It belongs to the thread that set it, for the synchronous body it was set around: a step is
/// applied on one thread from start to end, and an event printed on another thread meanwhile (a
/// command's reader raising a lint) must not take its time. A thread-specific value, not a task
/// local: it is read for every event, and a task local's lookup cost a recorded run ~3% more.
package enum RecordedTime {
  /// Holds `nanoseconds + 1` as the pointer's bits, so that no value is `nil`; `nil` when the
  /// process has used up its keys (PTHREAD_KEYS_MAX): then events take the clock's time.
  private static let key: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
  }()

  /// The time set around the running synchronous body on this thread, if any.
  package static var current: Duration? {
    guard let key, let bits = pthread_getspecific(key) else { return nil }
    return .nanoseconds(Int64(Int(bitPattern: bits)) &- 1)
  }

  /// Runs `body` with ``current`` set to `time` on this thread (`nil`: unset), then restores it.
  package static func withValue<T>(_ time: Duration?, _ body: () throws -> T) rethrows -> T {
    try withValue(nanoseconds: time?.nanoseconds, body)
  }

  /// ``withValue(_:_:)`` with the time in nanoseconds, as a step has it.
  static func withValue<T>(nanoseconds time: Int64?, _ body: () throws -> T) rethrows -> T {
    guard let key else { return try body() }
    let previous = pthread_getspecific(key)
    _ = pthread_setspecific(key, time.flatMap { UnsafeRawPointer(bitPattern: Int($0) &+ 1) })
    defer { _ = pthread_setspecific(key, previous) }
    return try body()
  }
}

/// Writes `--record FILE`: the header, then every happening that enters the flow with its time,
/// every event the run prints, and how it ended, one JSON object per line (docs/recording.md).
///
/// Lines are written in the order things happened: a store's step, a lint raised by a command's
/// reader thread and a rejected input line each take the recorder's step lock, so a replay that
/// applies the lines in file order prints the events in the order the run printed them.
/// Everything is buffered and written whenever the run's output is flushed; a write that fails,
/// or a line longer than ``maxLineBytes``, stops the recording and is reported at the end
/// (status 74).
package final class RunRecorder: Sendable {
  /// The version in the header; a replay refuses a recording of a later one. Version 2 writes
  /// an event without the members a replay knows from the lines before it (``event(_:)``);
  /// version 1 wrote every event whole.
  package static let formatVersion = 2

  /// The longest line of a recording, in bytes without its newline. A replay refuses a longer
  /// one without holding it whole, and a run does not write one: its recording stops there.
  package static let maxLineBytes = 16 << 20

  package let path: String
  private let fd: Int32
  private let writer: OutputWriter
  /// Why the recording is not whole: after `cannot write recording 'PATH': `.
  private let failure = Locked<String?>(nil)
  /// The number of lines written.
  private let lines = Atomic(0)
  /// A line was too long: nothing more is written.
  private let stopped = Atomic(false)
  /// Held while a step or a note is applied and recorded.
  private let stepLock = Mutex(())
  /// The run's own time, not the recorded one.
  private let clockElapsed: @Sendable () -> Duration
  /// The time of the last line written, for what the run prints after its last happening.
  private let last = Atomic<Int64>(0)
  /// The time of the last happening line in the buffer, in nanoseconds: what an event line
  /// after it may leave out. Written and read only inside `writer.write`, under its lock, so
  /// that it always goes with the buffer's order.
  private let lineTime = Atomic<Int64>(0)
  /// Whether the end is written (or the file closed): nothing more may be.
  private let ended = Atomic(false)

  /// Opens `path` for writing (`0600`, see ``PrivateFile``: a recording may hold command
  /// output), before the run starts.
  ///
  /// A FIFO that no one reads yet is waited for, after one line on stderr says so: the run
  /// starts when a reader opens it (a signal still ends the process).
  /// - Returns: The descriptor, or why the file cannot be written.
  package static func openFile(path: String) -> Result<Int32, LineProblem> {
    if path == "-" {
      return .failure(
        LineProblem("'--record' needs a file path; '-' (stdout) would mix with events"))
    }
    var fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK)
    if fd < 0, errno == ENXIO {
      Loadctl.printErr(
        "waiting for a reader of recording FIFO '\(path.escapingControlCharacters)' before the "
          + "run starts\n")
      fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC | O_CLOEXEC)
    }
    guard fd >= 0 else {
      return .failure(
        LineProblem("cannot write recording '\(path)': \(InputFile.describeErrno(errno))"))
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return .success(fd)
  }

  /// Records into `fd`, opened by ``openFile(path:)``, with times from `elapsed`.
  package init(path: String, fd: Int32, elapsed: @escaping @Sendable () -> Duration) {
    self.path = path
    self.fd = fd
    self.clockElapsed = elapsed
    let failure = self.failure
    writer = OutputWriter(
      fileDescriptor: fd, flushThreshold: 1 << 16,
      onBrokenPipe: { failure.withLock { $0 = $0 ?? InputFile.describeErrno(EPIPE) } },
      onError: { code in failure.withLock { $0 = $0 ?? InputFile.describeErrno(code) } })
  }

  /// The time an event printed now carries: its happening's, else the clock's.
  package var elapsed: @Sendable () -> Duration {
    { [clockElapsed] in RecordedTime.current ?? clockElapsed() }
  }

  /// The time of the last line recorded: what the run prints after it (its `end`) carries it.
  package var lastTime: Duration { .nanoseconds(last.load(ordering: .acquiring)) }

  /// Writes the header line.
  package func header(_ fields: [(String, JSONValue)]) {
    line(.object([("loadctl_recording", .int(Self.formatVersion))] + fields))
  }

  /// Records `happening` (its JSON fields) and applies it with `step`, with the step's events
  /// stamped with its time.
  package func step(_ fields: [(String, JSONValue)], _ body: () -> Void) {
    step(
      writing: { buffer in
        for (key, value) in fields {
          buffer.append(UInt8(ascii: ","))
          JSONValue.writeString(key, to: &buffer)
          buffer.append(UInt8(ascii: ":"))
          value.write(to: &buffer)
        }
      }, body)
  }

  /// Like ``step(_:_:)``, with the happening's fields written by `fields` (each as `,"key":value`)
  /// straight into the recording: a store's happenings, one per step, are not built as values
  /// first.
  ///
  /// A step recorded while this thread applies another (a closed stdout noticed by a flush inside
  /// a step, which stops the run) is recorded where it happens, inside the outer one: the step
  /// lock is not taken twice.
  package func step(writing fields: (inout [UInt8]) -> Void, _ body: () -> Void) {
    if StepThread.isApplying(self) { return record(writing: fields, body) }
    stepLock.withLock { _ in
      StepThread.applying(self) { record(writing: fields, body) }
    }
  }

  /// Writes the happening's line and applies it, the step lock held by this thread.
  private func record(writing fields: (inout [UInt8]) -> Void, _ body: () -> Void) {
    let now = stamp()
    writeLine { buffer in
      lineTime.store(now, ordering: .relaxed)
      Self.timePrefix.withUTF8Buffer { buffer.append(contentsOf: $0) }
      JSONValue.writeInt(Int(now), to: &buffer)
      fields(&buffer)
      buffer.append(UInt8(ascii: "}"))
      buffer.append(UInt8(ascii: "\n"))
    }
    RecordedTime.withValue(nanoseconds: now) { body() }
  }

  private static var timePrefix: StaticString { #"{"t":"# }

  /// A lint raised outside the flow's steps (by a command's reader thread, by the input).
  package func warning(_ warning: LintWarning, _ raise: () -> Void) {
    step(
      [
        (
          "warning",
          .object([
            ("lint", .string(warning.lint.name)), ("subject", .string(warning.subject)),
            ("message", .string(warning.message)),
          ])
        )
      ], raise)
  }

  /// A rejected input line.
  package func rejected(_ error: InputError, _ report: () -> Void) {
    step(
      [("rejected", .object([("line", .int(error.line)), ("message", .string(error.message))]))],
      report)
  }

  /// Why the run is being stopped from outside (a signal, `q`, a closed stdout).
  package func shutdown(_ reason: ShutdownReason) {
    step([("shutdown", reason.recorded)]) {}
  }

  /// The run is being suspended by Ctrl-Z (`true`), or was continued (`false`); `mark` notes it
  /// where the run's lints read it, in the same step, so no step sees it before it is recorded.
  package func suspended(_ stopped: Bool, _ mark: () -> Void) {
    step([("suspended", .bool(stopped))], mark)
  }

  /// The flow's `--duration` ended the run.
  package func deadline() {
    step([("deadline", true)]) {}
  }

  /// What the flow's own feed reported when it stopped (the ticker's).
  package func feed(_ report: JSONValue) {
    step([("feed", report)]) {}
  }

  /// One printed event: `{"out":{"event":…}}`, its line without `seq`, `elapsed_ms` and
  /// `command`, which a replay knows: the `seq` from the events before it, the `command` from
  /// the header, and the time from the happening line before it, when the event carries that
  /// time (every event a step prints does). An event that carries another time (one printed
  /// outside the steps, by the clock) gets `,"elapsed_ms":…` after `out`, as printed.
  package func event(_ printed: PrintedEvent) {
    let line = printed.line
    let layout = printed.layout
    let time = printed.time
    writeLine { buffer in
      Self.outPrefix.withUTF8Buffer { buffer.append(contentsOf: $0) }
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: line[layout.body...]))
      if time != .nanoseconds(lineTime.load(ordering: .relaxed)) {
        Self.elapsedKey.withUTF8Buffer { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: line[layout.elapsed]))
      }
      buffer.append(UInt8(ascii: "}"))
      buffer.append(UInt8(ascii: "\n"))
    }
  }

  private static var outPrefix: StaticString { #"{"out":{"# }
  private static var elapsedKey: StaticString { #","elapsed_ms":"# }

  /// How the process ends; then the recording is complete.
  package func end(_ end: ProcessEnd) {
    stepLock.withLock { _ in
      guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
      writeEnd(end)
    }
  }

  /// Ends the recording as the process dies at once by `signal` (SIGQUIT, which cancels
  /// nothing), then calls `die` — still holding the step lock, so nothing is recorded after the
  /// end.
  ///
  /// It waits up to 100 ms for a step being applied to finish, so that the recording never holds
  /// a happening without the events it printed; if none finishes (the cooperative pool blocked
  /// in a write), it writes what is buffered without an end: the recording is cut short, as
  /// after `kill -9`, and its replay says so. A recording that is not a regular file is written
  /// only as far as it can go without waiting.
  package func endAtOnce(by signal: UnixSignal, then die: () -> Never) -> Never {
    endAtOnce(by: signal)
    die()
  }

  /// Ends the recording as the process dies at once by `signal`, as
  /// ``endAtOnce(by:then:)`` does, and returns: for a forced exit, whose caller dies next.
  package func endAtOnce(by signal: UnixSignal) {
    for _ in 0..<100 {
      let done: Bool? = stepLock.withLockIfAvailable { _ in
        if !ended.exchange(true, ordering: .acquiringAndReleasing) {
          writeEnd(.signal(signal), atOnce: signal != .quit)
          flushWithoutBlocking()
        }
        return true
      }
      if done == true { return }
      usleep(1000)
    }
    if !ended.load(ordering: .acquiring) { flushWithoutBlocking() }
  }

  /// Flushes: at once to a regular file, and to anything else (a FIFO) only what goes without
  /// waiting.
  private func flushWithoutBlocking() {
    var status = stat()
    if fstat(fd, &status) != 0 || status.st_mode & S_IFMT != S_IFREG {
      OutputWriter.enterForcedExit()
    }
    writer.flush()
  }

  private func writeEnd(_ end: ProcessEnd, atOnce: Bool = false) {
    var fields: [(String, JSONValue)]
    switch end {
    case .exit(let status): fields = [("exit", .int(Int(status)))]
    case .signal(let signal):
      fields = [("signal", .string(signal.description)), ("exit", .int(Int(signal.shellStatus)))]
    case .brokenPipe: fields = [("signal", "SIGPIPE"), ("exit", 141)]
    }
    if atOnce { fields.append(("at_once", true)) }
    line(.object([("end", .object(fields))]))
  }

  /// Writes what is buffered.
  package func flush() { writer.flush() }

  /// Whether a write failed: the recording is not whole, and the run ends with 74.
  package var hasFailed: Bool { failure.withLock { $0 != nil } }

  /// Flushes and closes the file (after ``end(_:)``).
  /// - Returns: Why the recording could not be written whole, if it could not.
  package func finish() -> String? {
    let closeError = stepLock.withLock { _ -> Int32? in
      writer.flush()
      ended.store(true, ordering: .releasing)
      return close(fd) == 0 || errno == EINTR ? nil : errno
    }
    if let closeError { failure.withLock { $0 = $0 ?? InputFile.describeErrno(closeError) } }
    guard let reason = failure.withLock({ $0 }) else { return nil }
    return "cannot write recording '\(path)': \(reason)"
  }

  /// The run's time now, in nanoseconds, remembered as the last line's.
  private func stamp() -> Int64 {
    let now = clockElapsed().nanoseconds
    last.store(now, ordering: .releasing)
    return now
  }

  private func line(_ value: JSONValue) {
    writeLine { buffer in
      value.write(to: &buffer)
      buffer.append(UInt8(ascii: "\n"))
    }
  }

  /// Appends one line, written by `body` with its newline, unless the recording has stopped. A
  /// line longer than ``maxLineBytes`` is taken back and stops the recording: a replay would
  /// refuse it, and a recording without it would not replay the run.
  private func writeLine(_ body: (inout [UInt8]) -> Void) {
    writer.write { buffer in
      guard !stopped.load(ordering: .relaxed) else { return }
      let start = buffer.count
      body(&buffer)
      let number = lines.add(1, ordering: .relaxed).newValue
      guard buffer.count - start - 1 > Self.maxLineBytes else { return }
      buffer.removeSubrange(start...)
      stopped.store(true, ordering: .relaxed)
      failure.withLock {
        $0 =
          $0
          ?? "line \(number) would be longer than \(Self.maxLineBytes >> 20) MiB, more than a "
          + "replay reads; the recording stops before it"
      }
    }
  }
}

/// Which ``RunRecorder``'s step the running thread is applying, if any: a thread-specific value
/// set while the thread holds that recorder's step lock.
private enum StepThread {
  private static let key: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
  }()

  /// Whether this thread is applying a step of `recorder` (and so holds its step lock).
  static func isApplying(_ recorder: RunRecorder) -> Bool {
    guard let key, let current = pthread_getspecific(key) else { return false }
    return current == Unmanaged.passUnretained(recorder).toOpaque()
  }

  /// Runs `body` marked as applying a step of `recorder`, whose step lock the caller holds.
  static func applying(_ recorder: RunRecorder, _ body: () -> Void) {
    guard let key else { return body() }
    let previous = pthread_getspecific(key)
    _ = pthread_setspecific(key, Unmanaged.passUnretained(recorder).toOpaque())
    defer { _ = pthread_setspecific(key, previous) }
    body()
  }
}

/// Hears of a store's happenings for a ``RunRecorder``.
package struct RecordingJournal<Action: RecordableAction>: StoreJournal {
  package let recorder: RunRecorder

  package func record(_ happening: StoreHappening<Action>, step: () -> Void) {
    recorder.step(writing: { happening.writeRecorded(to: &$0) }, step)
  }

  package func closing(_ report: () -> Void) {
    recorder.step([("closing", true)], report)
  }
}

extension StoreHappening where Action: RecordableAction {
  /// The fields of its recording line, after `t`.
  package var recorded: [(String, JSONValue)] {
    switch self {
    case .input(let action): [("input", action.recorded)]
    case .inputFinished: [("input_finished", true)]
    case .effectAction(let action, let serial):
      [("effect", .int(serial)), ("action", action.recorded)]
    case .effectFinished(let serial, let outcome):
      [("effect", .int(serial)), ("finished", outcome.recorded)]
    case .cancelRequest(let id): [("cancel_request", .string(id.name))]
    case .cancelled: [("cancelled", true)]
    }
  }

  /// Appends ``recorded``'s fields as JSON text (`,"input":{…}`), the actions written by
  /// ``RecordableAction/writeRecorded(to:)``.
  package func writeRecorded(to buffer: inout [UInt8]) {
    switch self {
    case .input(let action):
      Self.inputKey.withUTF8Buffer { buffer.append(contentsOf: $0) }
      action.writeRecorded(to: &buffer)
    case .effectAction(let action, let serial):
      Self.effectKey.withUTF8Buffer { buffer.append(contentsOf: $0) }
      JSONValue.writeInt(serial, to: &buffer)
      Self.actionKey.withUTF8Buffer { buffer.append(contentsOf: $0) }
      action.writeRecorded(to: &buffer)
    default:
      for (key, value) in recorded {
        buffer.append(UInt8(ascii: ","))
        JSONValue.writeString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        value.write(to: &buffer)
      }
    }
  }

  private static var inputKey: StaticString { ",\"input\":" }
  private static var effectKey: StaticString { ",\"effect\":" }
  private static var actionKey: StaticString { ",\"action\":" }
}

extension EffectOutcome {
  /// `"finished"`, `"cancelled"`, or `{"failed": message}`.
  package var recorded: JSONValue {
    switch self {
    case .finished: "finished"
    case .cancelled: "cancelled"
    case .failed(let message): .object([("failed", .string(message))])
    }
  }
}

extension ShutdownReason {
  /// `"SIGINT"` (any signal by name), `"broken_pipe"`, `{"write_failed": errno}`, `"quit"`.
  package var recorded: JSONValue {
    switch self {
    case .signal(let signal): .string(signal.description)
    case .brokenPipe: "broken_pipe"
    case .writeFailed(let code): .object([("write_failed", .int(Int(code)))])
    case .quit: "quit"
    }
  }
}

extension Duration {
  /// Whole nanoseconds (saturating).
  package var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    return product.addingReportingOverflow(attoseconds / 1_000_000_000).overflow
      ? .max : product + attoseconds / 1_000_000_000
  }
}
