extension Subprocess {
  /// The stdout lines of a running command, for ``Subprocess/withLines(isolation:_:)``.
  ///
  /// Lines are split on `\n`, without it and without a `\r` before it. A line longer than
  /// ``maxLine`` (1 MiB) is split into pieces of that size. The last line counts even without
  /// a final `\n`. `next()` returns `nil` at the end of stdout, or once the task is cancelled.
  public struct LineIterator {
    /// The longest line returned whole.
    public static let maxLine = 1 << 20

    /// The running command (its pids; whether its teardown killed it, once it was reaped).
    package let child: ChildProcess
    private var buffer: [UInt8] = []
    private var start = 0
    /// `buffer[start..<scanned]` has no newline.
    private var scanned = 0
    private var ended = false

    init(child: ChildProcess) { self.child = child }

    /// The next line's bytes, waiting for it; `nil` at the end.
    public mutating func next() async -> [UInt8]? {
      while true {
        let limit = min(buffer.count, start + Self.maxLine)
        if let newline = buffer[scanned..<limit].firstIndex(of: UInt8(ascii: "\n")) {
          return take(upTo: newline, skipping: 1)
        }
        scanned = limit
        if limit - start == Self.maxLine { return take(upTo: limit, skipping: 0) }
        if ended { return start < buffer.count ? take(upTo: buffer.count, skipping: 0) : nil }
        buffer.removeSubrange(..<start)
        scanned -= start
        start = 0
        // A command that always has output ready never makes `next()` suspend; a turn for the
        // caller's other tasks per chunk keeps a serial executor fair.
        await Task.yield()
        if let chunk = await child.next() { buffer += chunk } else { ended = true }
      }
    }

    /// The next line decoded as UTF-8 (invalid bytes become U+FFFD); `nil` at the end.
    public mutating func nextString() async -> String? {
      await next().map { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func take(upTo end: Int, skipping: Int) -> [UInt8] {
      var stop = end
      // A piece of a split line keeps its bytes; a whole line loses a final `\r`.
      if stop - start < Self.maxLine, stop > start, buffer[stop - 1] == UInt8(ascii: "\r") {
        stop -= 1
      }
      defer {
        start = end + skipping
        scanned = start
      }
      return Array(buffer[start..<stop])
    }
  }
}
