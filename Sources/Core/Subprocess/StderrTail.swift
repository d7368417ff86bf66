/// The last lines of a stream, each capped, for error messages.
struct StderrTail {
  static let maxLineBytes = 4096

  let maxLines: Int
  private(set) var lines: [String] = []
  private var current: [UInt8] = []
  private var started = false

  init(maxLines: Int) { self.maxLines = max(maxLines, 0) }

  /// Adds bytes; a line's bytes past ``maxLineBytes`` are dropped.
  mutating func append(_ bytes: ArraySlice<UInt8>) {
    for byte in bytes {
      started = true
      if byte == UInt8(ascii: "\n") {
        flush()
      } else if current.count < Self.maxLineBytes {
        current.append(byte)
      }
    }
  }

  /// Ends the stream: an unterminated last line counts.
  mutating func finish() -> [String] {
    if started { flush() }
    return lines
  }

  private mutating func flush() {
    if current.last == UInt8(ascii: "\r") { current.removeLast() }
    lines.append(String(decoding: current, as: UTF8.self))
    if lines.count > maxLines { lines.removeFirst(lines.count - maxLines) }
    current.removeAll(keepingCapacity: true)
    started = false
  }
}
