/// What one captured stream (stdout or stderr) has delivered so far, split into lines.
///
/// Bytes arrive in arbitrary chunks: a line may be split across two reads and a read may hold
/// many lines. Tests want whole lines, in order, plus the raw bytes for exact comparisons.
/// A cursor remembers which lines `waitForLine` already consumed, so consecutive waits match
/// lines in the order they were written, including lines that arrived before the wait began.
struct LineBuffer: Sendable {
  /// Every byte received, unchanged.
  private(set) var bytes: [UInt8] = []
  /// Complete lines without their `\n`; after EOF, a final unterminated line too.
  private(set) var lines: [String] = []
  /// When each of `lines` was complete, in the same order.
  private(set) var arrivals: [ContinuousClock.Instant] = []
  /// True once the stream reached end of file.
  private(set) var isClosed = false
  /// Index of the first line that no `waitForLine` has matched or skipped yet.
  private(set) var cursor = 0
  private var partial: [UInt8] = []

  /// Adds a chunk as read from the pipe at `now`.
  mutating func append(_ chunk: ArraySlice<UInt8>, at now: ContinuousClock.Instant = .now) {
    bytes.append(contentsOf: chunk)
    var start = chunk.startIndex
    while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
      partial.append(contentsOf: chunk[start..<newline])
      lines.append(String(decoding: partial, as: UTF8.self))
      arrivals.append(now)
      partial.removeAll(keepingCapacity: true)
      start = newline + 1
    }
    partial.append(contentsOf: chunk[start...])
  }

  /// Marks end of file; an unterminated last line becomes a line.
  mutating func close() {
    guard !isClosed else { return }
    isClosed = true
    if !partial.isEmpty {
      lines.append(String(decoding: partial, as: UTF8.self))
      arrivals.append(.now)
      partial.removeAll()
    }
  }

  /// Finds the first line at or after the cursor that matches, and moves the cursor past it.
  ///
  /// - Parameter scanned: Lines before this index were already tested by the same waiter and
  ///   are skipped, so a flood of output is not rescanned on every chunk; it is advanced to
  ///   the end of the lines tested.
  /// - Returns: The matching line, or `nil` (the cursor stays put) when none has arrived yet.
  mutating func consumeFirstLine(
    where predicate: (String) -> Bool, scanned: inout Int
  ) -> String? {
    let start = max(cursor, scanned)
    guard start < lines.count, let index = lines[start...].firstIndex(where: predicate) else {
      scanned = lines.count
      return nil
    }
    cursor = index + 1
    return lines[index]
  }

  /// The received bytes decoded as UTF-8 (invalid sequences replaced).
  var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The unterminated tail, if any, for failure messages.
  var unterminated: String? {
    partial.isEmpty ? nil : String(decoding: partial, as: UTF8.self)
  }

  /// The last `limit` lines (and any unterminated tail), for failure messages.
  func tail(_ limit: Int = 40) -> String {
    var shown = lines.suffix(limit)
    if !partial.isEmpty {
      shown.append(String(decoding: partial, as: UTF8.self) + "  [no newline yet]")
    }
    let skipped = lines.count - min(lines.count, limit)
    let header = skipped > 0 ? ["… \(skipped) earlier lines"] : []
    return (header + shown).map { "  | \($0)" }.joined(separator: "\n")
  }
}
