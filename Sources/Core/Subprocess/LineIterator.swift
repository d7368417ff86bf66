extension Subprocess {
  /// The lines of a running command, for ``Subprocess/withLines(isolation:_:)``.
  ///
  /// Lines are split on `\n`, without it and without a `\r` before it. A line longer than
  /// ``maxLine`` (1 MiB) is split into pieces of that size. The last line counts even without
  /// a final `\n`. `next()` gives stdout's lines; `nextLine()` gives stdout's and, with
  /// ``Subprocess/streamsStderr``, stderr's, each as it comes. Both return `nil` at the end, or
  /// once the task is cancelled.
  public struct LineIterator {
    /// The longest line returned whole.
    public static let maxLine = 1 << 20

    /// Which of the command's pipes a line came from.
    public enum Stream: String, Sendable, Equatable {
      case stdout, stderr
    }

    /// One line of ``nextLine()``: its stream and its bytes.
    public struct Line: Sendable, Equatable {
      public var stream: Stream
      public var bytes: [UInt8]
    }

    /// The running command (its pids; whether its teardown killed it, once it was reaped).
    package let child: ChildProcess
    private var stdout = LineSplitter()
    private var stderr = LineSplitter()
    private var ended = false

    init(child: ChildProcess) { self.child = child }

    /// The stderr bytes dropped so far, never shown by ``nextLine()``, because the consumer had
    /// not taken the ones before; they are still in ``Output/stderrTail``'s lines.
    public var droppedStderrBytes: Int { child.droppedStderr }

    /// The next stdout line's bytes, waiting for it; `nil` at the end.
    public mutating func next() async -> [UInt8]? {
      while true {
        if let line = stdout.next(ended: ended) { return line }
        if ended { return nil }
        await fill(keepingStderr: false)
      }
    }

    /// Lines of one stream, as ``nextLines()`` gives them: decoded as UTF-8 (invalid bytes
    /// become U+FFFD).
    public struct Lines: Sendable, Equatable {
      public var stream: Stream
      public var lines: [String]
    }

    /// Every line of one stream that the bytes read so far hold, at least one, waiting for one;
    /// `nil` at the end of both. Stderr's come first, as in ``nextLine()``.
    ///
    /// A consumer that shows lines as they come takes a read's worth at a time, so what it does
    /// per batch (a hand-over, a clock read, a flush) is not paid per line.
    public mutating func nextLines() async -> Lines? {
      while true {
        var lines: [String] = []
        stderr.appendStrings(to: &lines, ended: ended)
        if !lines.isEmpty { return Lines(stream: .stderr, lines: lines) }
        stdout.appendStrings(to: &lines, ended: ended)
        if !lines.isEmpty { return Lines(stream: .stdout, lines: lines) }
        if ended { return nil }
        await fill(keepingStderr: true)
      }
    }

    /// The next line of stdout or stderr, waiting for one; `nil` at the end of both.
    public mutating func nextLine() async -> Line? {
      while true {
        if let line = stderr.next(ended: ended) { return Line(stream: .stderr, bytes: line) }
        if let line = stdout.next(ended: ended) { return Line(stream: .stdout, bytes: line) }
        if ended { return nil }
        await fill(keepingStderr: true)
      }
    }

    /// Waits until the command has exited and been reaped, however long it runs on after
    /// closing its pipes (`exec >&- 2>&-; sleep 1`), so that what
    /// ``Subprocess/withLines(isolation:_:)`` reports is the command's own end, not its teardown.
    public func exited() async {
      _ = await child.finished()
    }

    /// The next stdout line decoded as UTF-8 (invalid bytes become U+FFFD); `nil` at the end.
    public mutating func nextString() async -> String? {
      await next().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Takes the next chunk; stderr's is dropped unless `keepingStderr` (`next()` reads stdout
    /// only, and must not hold what it will never give).
    private mutating func fill(keepingStderr: Bool) async {
      // A command that always has output ready never makes `next()` suspend; a turn for the
      // caller's other tasks per chunk keeps a serial executor fair.
      await Task.yield()
      guard let chunk = await child.nextChunk() else {
        ended = true
        return
      }
      switch chunk.pipe {
      case .stdout: stdout.append(chunk.bytes)
      case .stderr: if keepingStderr { stderr.append(chunk.bytes) }
      }
    }
  }
}

/// Splits one stream's bytes into lines for ``Subprocess/LineIterator`` and
/// ``Subprocess/output(limit:beyond:stderr:)``.
struct LineSplitter {
  private var buffer: [UInt8] = []
  private var cursor = Cursor()

  /// Where the next line starts in the buffer, and how far past it no newline is.
  private struct Cursor {
    var start = 0
    /// `buffer[start..<scanned]` has no newline.
    var scanned = 0

    /// The next whole line in `bytes`, or piece of ``Subprocess/LineIterator/maxLine`` bytes,
    /// or once the stream has `ended` what is left, moving past it; `nil` when more bytes are
    /// needed (or none are left).
    mutating func next(in bytes: UnsafeBufferPointer<UInt8>, ended: Bool) -> Range<Int>? {
      let maxLine = Subprocess.LineIterator.maxLine
      let limit = min(bytes.count, start + maxLine)
      if let newline = bytes[scanned..<limit].firstIndex(of: UInt8(ascii: "\n")) {
        return take(bytes, upTo: newline, skipping: 1)
      }
      scanned = limit
      if limit - start == maxLine { return take(bytes, upTo: limit, skipping: 0) }
      if ended, start < bytes.count { return take(bytes, upTo: bytes.count, skipping: 0) }
      return nil
    }

    private mutating func take(
      _ bytes: UnsafeBufferPointer<UInt8>, upTo end: Int, skipping: Int
    ) -> Range<Int> {
      var stop = end
      // A piece of a split line keeps its bytes; a whole line loses a final `\r`.
      if stop - start < Subprocess.LineIterator.maxLine, stop > start,
        bytes[stop - 1] == UInt8(ascii: "\r")
      {
        stop -= 1
      }
      defer {
        start = end + skipping
        scanned = start
      }
      return start..<stop
    }
  }

  mutating func append(_ chunk: [UInt8]) {
    buffer.removeSubrange(..<cursor.start)
    cursor.scanned -= cursor.start
    cursor.start = 0
    buffer += chunk
  }

  /// The next line (see ``Cursor/next(in:ended:)``).
  mutating func next(ended: Bool) -> [UInt8]? {
    var cursor = self.cursor
    defer { self.cursor = cursor }
    return buffer.withUnsafeBufferPointer { bytes in
      cursor.next(in: bytes, ended: ended).map { Array(bytes[$0]) }
    }
  }

  /// Appends every line the buffer holds to `lines`, each decoded as UTF-8 straight from it.
  mutating func appendStrings(to lines: inout [String], ended: Bool) {
    var cursor = self.cursor
    buffer.withUnsafeBufferPointer { bytes in
      while let line = cursor.next(in: bytes, ended: ended) {
        lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self))
      }
    }
    self.cursor = cursor
  }
}
