import LoadctlCore
import Synchronization

/// The one place a flow's events become bytes: text lines or JSON Lines, in order, flushed.
///
/// Every event gets the next `seq` and the `elapsed_ms` of the run's clock, so the JSON contract
/// (`seq`, `elapsed_ms`, `command`, `event`, then the event's fields) holds for every flow. Text
/// mode prints `  1.002s  profile  <text>`; quiet mode keeps only results and problems.
package final class EventOutput: Sendable {
  /// How an event is shown in text mode.
  package enum Kind: Sendable {
    /// A step people watch (transitions, ticks); hidden by `--quiet`.
    case progress
    /// The final result; always shown.
    case result
    /// Something went wrong; always shown.
    case problem
  }

  package let command: String
  package let json: Bool
  package let quiet: Bool
  package let style: Style
  private let writer: OutputWriter
  private let elapsed: @Sendable () -> Duration
  private let tap: (@Sendable (ObservedEvent, [(String, JSONValue)], Duration) -> Void)?
  /// Sees every event's JSON line, in `seq` order, in either mode: `--record` and a replay's
  /// check.
  private let lines: (@Sendable (PrintedEvent) -> Void)?
  /// The last event's `seq`.
  private let state = Locked(0)
  /// Set while a store runs: the run's executor flushes when it runs out of work.
  private let held = Atomic(false)
  /// Whether the run's executor flushes this output whenever it runs out of work (see
  /// ``flushedWhenIdle()``): only then may a store's run hold flushes.
  private let idleFlushes = Atomic(false)
  /// `,"command":"<command>","event":`, escaped once: every JSON line repeats it.
  private let commandPrefix: String

  /// - Parameters:
  ///   - tap: Sees every event (what observers learn, its fields, its time) before it is
  ///     printed: `--trace`, `--timeline`, the spinner.
  ///   - lines: Sees every event as the JSON line `--json` prints (without its newline), in
  ///     either mode, under the lock that orders events: `--record`, and a replay's check.
  package init(
    command: String, json: Bool, quiet: Bool, style: Style, writer: OutputWriter,
    elapsed: @escaping @Sendable () -> Duration,
    tap: (@Sendable (ObservedEvent, [(String, JSONValue)], Duration) -> Void)? = nil,
    lines: (@Sendable (PrintedEvent) -> Void)? = nil
  ) {
    self.tap = tap
    self.lines = lines
    self.command = command
    self.json = json
    self.quiet = quiet
    self.style = style
    self.writer = writer
    self.elapsed = elapsed
    var prefix = ",\"command\":"
    JSONValue.writeString(command, to: &prefix)
    self.commandPrefix = prefix + ",\"event\":"
  }

  /// The number of events written so far.
  package var count: Int { state.withLock { $0 } }

  /// Writes one event.
  /// - Parameters:
  ///   - event: The JSON `event` name.
  ///   - fields: The event's own fields, after the common ones.
  ///   - kind: How text mode treats it.
  ///   - text: The text-mode line after the time and command; `nil` prints nothing in text mode.
  ///   - observed: What the tap's observers learn (made only when there is a tap); by default a
  ///     point named `event`.
  ///   - flush: Flush now (the default) — unless a store run holds flushes (see
  ///     ``holdingFlushes(_:)``); hot loops pass `false` and flush per burst.
  ///   - tapped: Whether the tap sees it; `false` for an event the tap was shown beforehand
  ///     with ``observe(_:_:)``.
  package func emit(
    _ event: String, _ fields: [(String, JSONValue)] = [], kind: Kind = .progress,
    text: @autoclosure () -> String?, observed: @autoclosure () -> ObservedEvent? = nil,
    flush: Bool = true, tapped: Bool = true
  ) {
    let tap = tapped ? self.tap : nil
    let body = json || (quiet && kind == .progress) ? nil : text()
    // Numbering, timing, the tap and writing happen under one lock: events emitted from two
    // tasks (a producer reporting a bad input line while a consumer prints ticks) must still reach
    // the writer (and the trace) in `seq` order with non-decreasing `elapsed_ms`.
    state.withLock { seq in
      seq += 1
      let now = elapsed()
      if let tap { tap(observed() ?? .instant(event), fields, now) }
      write(seq: seq, now: now, event: event, fields: fields, body: body)
    }
    if flush, !held.load(ordering: .acquiring) { writer.flush() }
  }

  /// Writes events `event`, one per index in `0..<count`, at one time and under one lock: a
  /// batch of a command's lines.
  ///
  /// Each is the event ``emit(_:_:kind:text:observed:flush:tapped:)`` would write with
  /// `fields(index)` and the text `text` appends for it (after the time and the command, which
  /// are formatted once for the batch).
  package func emitEach(
    _ event: String, count: Int, kind: Kind, fields: (Int) -> [(String, JSONValue)],
    text: (Int, inout [UInt8]) -> Void
  ) {
    let shown = !json && !(quiet && kind == .progress)
    state.withLock { seq in
      let now = elapsed()
      guard tap == nil, lines == nil, !json else {
        for index in 0..<count {
          seq += 1
          let fields = fields(index)
          tap?(.instant(event), fields, now)
          var bytes: [UInt8] = []
          if shown { text(index, &bytes) }
          let body = shown ? String(decoding: bytes, as: UTF8.self) : nil
          write(seq: seq, now: now, event: event, fields: fields, body: body)
        }
        return
      }
      seq += count
      guard shown else { return }
      let prefix = Array(
        "\(style.dim(EventOutput.formatElapsed(now)))  \(style.cyan(command))  ".utf8)
      prefix.withUnsafeBufferPointer { prefix in
        // A write at a time up to the writer's threshold: each is flushed before the next, so
        // the buffer stays its usual size however many lines a batch has.
        var index = 0
        while index < count {
          let written = writer.write { buffer in
            while index < count, buffer.count < writer.flushThreshold {
              buffer.append(contentsOf: prefix)
              text(index, &buffer)
              buffer.append(UInt8(ascii: "\n"))
              index += 1
            }
          }
          if !written { break }
        }
      }
    }
    if !held.load(ordering: .acquiring) { writer.flush() }
  }

  /// Writes one numbered event: its JSON line (handed to `lines` too), or its text `body`.
  private func write(
    seq: Int, now: Duration, event: String, fields: [(String, JSONValue)], body: String?
  ) {
    if let lines {
      // Recorded or checked: the JSON line is built in either mode and handed on.
      if json {
        let written = writer.write { buffer in
          let start = buffer.count
          let layout = writeLine(seq: seq, now: now, event: event, fields: fields, to: &buffer)
          buffer.withUnsafeBufferPointer { all in
            lines(PrintedEvent(line: .init(rebasing: all[start...]), layout: layout, time: now))
          }
          buffer.append(UInt8(ascii: "\n"))
        }
        if written { return }
        // Stdout failed (its reader left): the event still happened, and the recording (or
        // the replay's check) still sees it, whichever noticed the closed pipe first.
      }
      var line: [UInt8] = []
      let layout = writeLine(seq: seq, now: now, event: event, fields: fields, to: &line)
      line.withUnsafeBufferPointer { lines(PrintedEvent(line: $0, layout: layout, time: now)) }
    } else if json {
      writer.write { line in
        writeLine(seq: seq, now: now, event: event, fields: fields, to: &line)
        line.append(UInt8(ascii: "\n"))
      }
      return
    }
    guard let body else { return }
    let time = style.dim(EventOutput.formatElapsed(now))
    writer.write("\(time)  \(style.cyan(command))  \(body)\n")
  }

  /// Shows the tap an event (a point named `event`) without printing it: the run's `end`, whose
  /// trace is written before `end` is printed, so that `end` can say whether it was.
  package func observe(_ event: String, _ fields: [(String, JSONValue)]) {
    guard let tap else { return }
    state.withLock { _ in tap(.instant(event), fields, elapsed()) }
  }

  /// Appends the JSON line of one event, without its newline.
  /// - Returns: Where its parts are, from the line's first byte.
  @discardableResult
  private func writeLine(
    seq: Int, now: Duration, event: String, fields: [(String, JSONValue)], to line: inout [UInt8]
  ) -> PrintedEvent.Layout {
    let start = line.count
    line.append(contentsOf: "{\"seq\":".utf8)
    JSONValue.writeInt(seq, to: &line)
    line.append(contentsOf: ",\"elapsed_ms\":".utf8)
    let elapsedStart = line.count
    JSONValue.writeNumber(EventOutput.milliseconds(now), to: &line)
    let elapsedEnd = line.count
    line.append(contentsOf: commandPrefix.utf8)
    let layout = PrintedEvent.Layout(
      elapsed: (elapsedStart - start)..<(elapsedEnd - start),
      body: line.count - start - PrintedEvent.Layout.eventKeyCount)
    JSONValue.writeString(event, to: &line)
    for (key, value) in fields {
      line.append(UInt8(ascii: ","))
      JSONValue.writeString(key, to: &line)
      line.append(UInt8(ascii: ":"))
      value.write(to: &line)
    }
    line.append(UInt8(ascii: "}"))
    return layout
  }

  /// Flushes buffered events.
  package func flush() { writer.flush() }

  /// Writes `text` between events, as it is, not as an event: the terminal control of
  /// `--clear`.
  package func writeControl(_ text: String) {
    state.withLock { _ in writer.write(text) }
  }

  /// Runs `body` with events kept in the buffer until ``flush()``, then flushes.
  ///
  /// For a store's run, whose executor calls ``flush()`` whenever the run has run out of work
  /// (see `RunExecutor`): lines still arrive as they happen, but a burst of them is one write.
  /// Without such an executor (``flushedWhenIdle()`` was not called: no thread could be made for
  /// it) nothing is held, and each event is flushed as it is written.
  package func holdingFlushes<T>(_ body: () async -> T) async -> T {
    guard idleFlushes.load(ordering: .acquiring) else { return await body() }
    held.store(true, ordering: .releasing)
    let result = await body()
    held.store(false, ordering: .releasing)
    flush()
    return result
  }

  /// Says that the run's executor calls ``flush()`` whenever it runs out of work, so that
  /// ``holdingFlushes(_:)`` may hold flushes until then.
  package func flushedWhenIdle() { idleFlushes.store(true, ordering: .releasing) }

  /// Milliseconds with microsecond precision, for `elapsed_ms`.
  package static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    guard !overflow else {
      // Past ~292,000 years (a virtual clock's): milliseconds as a double, whole ones.
      return (Double(seconds) * 1000).rounded()
    }
    return Double(micros + attoseconds / 1_000_000_000_000) / 1000
  }

  /// Milliseconds to the nanosecond, for an option such as `interval_ms`: a positive interval
  /// below a microsecond (`--interval 1ns`) must not be written as `0`.
  package static func exactMilliseconds(_ duration: Duration) -> Double {
    Double(duration.nanoseconds) / 1_000_000
  }

  /// `  1.002s`: seconds with milliseconds, right-aligned to 8 columns.
  package static func formatElapsed(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let millis = attoseconds / 1_000_000_000_000_000
    let fraction = String(millis)
    let text = "\(seconds).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    return String(repeating: " ", count: max(0, 8 - text.count)) + text
  }
}

/// One event's JSON line as `--json` prints it (without its newline), with where the members
/// every event shares end and its own begin: what `--record` and a replay's check see.
package struct PrintedEvent {
  /// Offsets in a printed line, from its first byte.
  package struct Layout: Equatable {
    /// The bytes of `elapsed_ms`'s value (`0.518`).
    package var elapsed: Range<Int>
    /// Where `"event":` starts: the event's own members, after `seq`, `elapsed_ms` and
    /// `command`, which every line has.
    package var body: Int

    /// The length of `"event":`.
    static let eventKeyCount = 8
  }

  /// `{"seq":…,"elapsed_ms":…,"command":…,"event":…, …}`, valid only while the event is
  /// handed on (it points into the output's buffer).
  package var line: UnsafeBufferPointer<UInt8>
  package var layout: Layout
  /// The time `elapsed_ms` says.
  package var time: Duration
}
