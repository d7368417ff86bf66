import LoadctlCore

/// The run's clock as input lines see it: when a `+DURATION` or `@DURATION` line applies.
package struct LineClock: Sendable {
  /// The run's clock; every wait of a line is a sleep on it.
  package let clock: any Clock<Duration>
  /// Time since the run started on `clock`, for `@DURATION`.
  package let elapsed: @Sendable () -> Duration
  /// Told when a line applied more than ``lateAfter`` after its time, and how late.
  package let late: (@Sendable (_ line: Int, _ lateness: Duration) -> Void)?

  /// How late a line may apply before ``late`` hears of it.
  package static let lateAfter: Duration = .milliseconds(200)

  package init(
    clock: any Clock<Duration>, elapsed: @escaping @Sendable () -> Duration,
    late: (@Sendable (_ line: Int, _ lateness: Duration) -> Void)? = nil
  ) {
    self.clock = clock
    self.elapsed = elapsed
    self.late = late
  }

  /// Waits until line `number`'s time has come: `+DURATION` after now, `@DURATION` after the
  /// start (at once when that has passed).
  /// - Returns: `false` when the task was cancelled before or during the wait.
  nonisolated(nonsending) func wait(for timing: InputLine.Timing, line number: Int) async -> Bool {
    let (due, delay): (Duration, Duration)
    switch timing {
    case .now: return !Task.isCancelled
    case .after(let duration): (due, delay) = (elapsed() + duration, duration)
    case .at(let offset): (due, delay) = (offset, offset - elapsed())
    }
    guard delay > .zero else { return !Task.isCancelled }
    do {
      try await clock.sleep(for: delay)
    } catch {
      return false
    }
    if let late {
      let lateness = elapsed() - due
      if lateness > Self.lateAfter { late(number, lateness) }
    }
    return true
  }
}

/// The one pipeline from input lines to a flow's values, for every `--input`, `--from` and
/// `--exec` feed.
///
/// Each line takes the same steps once: bytes that are not a line of text (not UTF-8, too long)
/// are rejected; the shared grammar (``InputLine``) skips blank lines and comments and takes the
/// time prefix; the line waits for its time on the run's clock; the flow's parser turns the rest
/// into a value or a ``LineProblem``. A rejected line is reported through `reject` with its
/// number and skipped; the lines before and after it still apply. Waits end when the task is
/// cancelled, and so does the reader.
package struct TimedLineReader<Lines: AsyncIteratorProtocol<RawLine, Never>, Value>:
  AsyncIteratorProtocol
{
  private var lines: Lines
  private let clock: LineClock
  private let parse: @Sendable (String) -> Result<Value, LineProblem>
  private let reject: @Sendable (InputError) -> Void
  /// A line read ahead by ``nextReady(isolation:)`` whose time has not come.
  private var held: InputLine?
  private var ended = false

  /// - Parameters:
  ///   - lines: Raw lines: a file's, a pipe's, a command's stdout.
  ///   - clock: When a line with a time prefix applies.
  ///   - parse: The flow's parser of a line's text (after its prefix).
  ///   - reject: Reports a bad line.
  package init(
    lines: Lines, clock: LineClock,
    parse: @escaping @Sendable (String) -> Result<Value, LineProblem>,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.lines = lines
    self.clock = clock
    self.parse = parse
    self.reject = reject
  }

  package nonisolated(nonsending) mutating func next() async -> Value? {
    await next(isolation: #isolation)
  }

  /// The next value, once its line's time has come; `nil` at the end of the lines or once the
  /// task is cancelled.
  package mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
    while true {
      let line: InputLine
      if let waiting = held {
        held = nil
        line = waiting
      } else {
        guard let read = await read() else { return nil }
        line = read
      }
      guard await clock.wait(for: line.timing, line: line.number) else { return nil }
      if let value = take(line) { return value }
    }
  }

  /// The next value when it needs no wait: `nil` when the next line has a time prefix (it is
  /// held for ``next(isolation:)``) or the lines have ended. A batch of what is already there.
  package nonisolated(nonsending) mutating func nextReady() async -> Value? {
    while held == nil, let line = await read() {
      guard line.timing == .now else {
        held = line
        break
      }
      if let value = take(line) { return value }
    }
    return nil
  }

  /// The next line that says something, bad ones reported; `nil` at the end.
  private nonisolated(nonsending) mutating func read() async -> InputLine? {
    while !ended {
      guard let raw = await lines.next(isolation: #isolation) else {
        ended = true
        break
      }
      if let line = understand(raw) { return line }
    }
    return nil
  }

  /// The line `raw` is, through the shared grammar; `nil` for a bad line (reported), a blank
  /// line or a comment.
  private func understand(_ raw: RawLine) -> InputLine? {
    guard let text = raw.text else {
      reject(InputError(line: raw.number, message: raw.problem ?? "unreadable line"))
      return nil
    }
    do throws(InputError) {
      return try InputLine.parse(text, number: raw.number)
    } catch {
      reject(error)
      return nil
    }
  }

  private mutating func take(_ line: InputLine) -> Value? {
    switch parse(line.body) {
    case .success(let value):
      return value
    case .failure(let problem):
      reject(InputError(line: line.number, message: problem.message))
      return nil
    }
  }
}

extension TimedLineReader: ReadyIterator where Lines: ReadyIterator {
  /// The next value when its line has already been read and needs no wait; a line with a time
  /// prefix is held for ``next(isolation:)``. Bad lines on the way are reported, as there.
  package mutating func nextReady() -> Value? {
    while held == nil, !ended, let raw = lines.nextReady() {
      guard let line = understand(raw) else { continue }
      guard line.timing == .now else {
        held = line
        return nil
      }
      if let value = take(line) { return value }
    }
    return nil
  }
}

/// A flow's input lines as a sequence of its values, through ``TimedLineReader``.
package struct TimedLines<Value: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Value
  package typealias Failure = Never

  private let makeReader: @Sendable () -> TimedLineReader<RawLines.Iterator, Value>

  /// See ``TimedLineReader/init(lines:clock:parse:reject:)``.
  package init(
    lines: RawLines, clock: LineClock,
    parse: @escaping @Sendable (String) -> Result<Value, LineProblem>,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    makeReader = {
      TimedLineReader(
        lines: lines.makeAsyncIterator(), clock: clock, parse: parse, reject: reject)
    }
  }

  package func makeAsyncIterator() -> TimedLineReader<RawLines.Iterator, Value> { makeReader() }
}
