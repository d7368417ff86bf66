import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ExternalCommand {
  /// `--output`: which of a running command's lines are shown.
  package enum OutputMode: String, Sendable, CaseIterable {
    /// Every line, as it comes.
    case show
    /// A command's lines only when it fails, once it has ended (as CI tools do).
    case failed
    /// None.
    case hide
  }

  /// What a running command printed, as its effect hands it on: lines of stdout or stderr (as
  /// many as one read brought), or how many bytes of a stream were not shown (a flood loadctl
  /// could not keep up with, or what `--output failed` could not hold).
  package enum Output: Sendable, Equatable {
    case lines(Subprocess.LineIterator.Stream, [String])
    case dropped(Subprocess.LineIterator.Stream, bytes: Int)

    /// One line.
    package static func line(_ stream: Subprocess.LineIterator.Stream, _ line: String) -> Self {
      .lines(stream, [line])
    }
  }

  /// The most bytes of lines `--output failed` holds for one command; older lines go first.
  static let heldBytes = 1 << 20

  /// Runs `subprocess` to its end, handing its stdout and stderr lines to `show` as `mode` says.
  ///
  /// With ``OutputMode/show`` the lines go as they come, a read's worth at a time; with ``OutputMode/failed`` the lines
  /// (the last ``heldBytes`` of them) are held and go only when the command fails, before this
  /// throws; with ``OutputMode/hide`` they are read and dropped. A line is decoded as UTF-8
  /// (invalid bytes become U+FFFD) and escaped where it is printed, not here.
  /// - Throws: `CancellationError` when the task was cancelled (the group is gone by then);
  ///   ``LoadFailure`` when the command could not start, exited non-zero or was killed by a
  ///   signal, with its last stderr line.
  package static func run(
    _ subprocess: Subprocess, what: String, output mode: OutputMode,
    show: @Sendable (Output) -> Void
  ) async throws {
    var subprocess = subprocess
    subprocess.streamsStderr = mode != .hide
    let run: (result: HeldOutput, termination: Subprocess.Termination, stderrTail: [String])
    do {
      run = try await subprocess.withLines { lines in
        var held = HeldOutput()
        while let batch = await lines.nextLines() {
          switch mode {
          case .show: show(.lines(batch.stream, batch.lines))
          case .failed:
            for line in batch.lines {
              held.append(.line(batch.stream, line), size: line.utf8.count)
            }
          case .hide: break
          }
        }
        if lines.droppedStderrBytes > 0 {
          let dropped = Output.dropped(.stderr, bytes: lines.droppedStderrBytes)
          if mode == .show { show(dropped) } else { held.append(dropped, size: 0) }
        }
        await lines.exited()
        return held
      }
    } catch let error as SubprocessError {
      if error == .cancelled { throw CancellationError() }
      throw LoadFailure(error.description)
    }
    guard run.termination == .exited(0) else {
      if mode == .failed { run.result.lines.forEach(show) }
      throw LoadFailure(failure(what, run.termination, run.stderrTail))
    }
  }

  /// The last lines of a command, at most ``ExternalCommand/heldBytes`` of them, for
  /// `--output failed`; what went is counted in a `dropped` line at the front.
  struct HeldOutput: Sendable {
    private var held: [(output: Output, size: Int)] = []
    private var first = 0
    private var size = 0
    private var dropped: [Subprocess.LineIterator.Stream: Int] = [:]

    mutating func append(_ output: Output, size: Int) {
      held.append((output, size))
      self.size += size
      while self.size > ExternalCommand.heldBytes, first < held.count - 1 {
        if case .lines(let stream, _) = held[first].output {
          dropped[stream, default: 0] += held[first].size
        }
        self.size -= held[first].size
        first += 1
      }
      if first > held.count / 2 {
        held.removeFirst(first)
        first = 0
      }
    }

    /// The lines held, oldest first, after how much of each stream was not held.
    var lines: [Output] {
      let streams: [Subprocess.LineIterator.Stream] = [.stdout, .stderr]
      return streams.compactMap { stream in dropped[stream].map { .dropped(stream, bytes: $0) } }
        + held[first...].map(\.output)
    }
  }
}

extension ExternalCommand.Output {
  /// Its fields in recordings: `stream`, then `line` (one line), `lines` (more) or
  /// `dropped_bytes`.
  package var fields: [(String, JSONValue)] {
    switch self {
    case .lines(let stream, let lines):
      [
        ("stream", .string(stream.rawValue)),
        lines.count == 1
          ? ("line", .string(lines[0])) : ("lines", .array(lines.map(JSONValue.string))),
      ]
    case .dropped(let stream, let bytes):
      [("stream", .string(stream.rawValue)), ("dropped_bytes", .int(bytes))]
    }
  }

  /// Reads what ``fields`` wrote, in a recorded action.
  package init(recorded fields: RecordedFields) throws(LineProblem) {
    let name = try fields.string("stream")
    guard let stream = Subprocess.LineIterator.Stream(rawValue: name) else {
      throw fields.problem("field \"stream\" must be \"stdout\" or \"stderr\", not \"\(name)\"")
    }
    if case .string(let line)? = try? fields.value("line") {
      self = .line(stream, line)
    } else if (try? fields.value("lines")) != nil {
      self = .lines(stream, try fields.strings("lines"))
    } else {
      self = .dropped(stream, bytes: try fields.count("dropped_bytes"))
    }
  }

  /// Prints it as `output` events of the effect `serial`, one per line: in text `#3 | line` for
  /// stdout and `#3 ! line` for stderr, the line escaped (see
  /// ``Swift/String/escapingControlCharacters``); in JSON `serial`, `stream`, then `line` or
  /// `dropped_bytes`. It is a result, shown with `--quiet` too: the command's output is what
  /// was asked for.
  package func emit(serial: Int?, to output: EventOutput) {
    let style = output.style
    let effect = serial.map { "#\($0) " } ?? ""
    let serial: (String, JSONValue) = ("serial", serial.map(JSONValue.int) ?? .null)
    switch self {
    case .lines(let stream, let lines):
      let streamField: (String, JSONValue) = ("stream", .string(stream.rawValue))
      let marker = Array(
        ((stream == .stdout ? style.dim("\(effect)|") : style.red("\(effect)!")) + " ").utf8)
      marker.withUnsafeBufferPointer { marker in
        output.emitEach(
          "output", count: lines.count, kind: .result,
          fields: { [serial, streamField, ("line", .string(lines[$0]))] },
          text: { index, buffer in
            buffer.append(contentsOf: marker)
            lines[index].appendEscaped(to: &buffer)
          })
      }
    case .dropped(let stream, let bytes):
      output.emit(
        "output", [serial] + fields, kind: .result,
        text: style.yellow(
          "\(effect)\(stream == .stdout ? "|" : "!") \(bytes) bytes of \(stream.rawValue) "
            + "not shown (more than loadctl could keep)"))
    }
  }
}
