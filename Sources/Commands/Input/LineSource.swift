import Dispatch
import LoadctlCore
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One line of input as read, before it is understood.
package struct RawLine: Sendable, Equatable {
  /// 1-based line number, for error messages.
  package let number: Int
  /// The text, or `nil` when the bytes were not valid UTF-8 or the line was too long.
  package let text: String?
  /// Why `text` is `nil`.
  package let problem: String?
}

/// Lines from a file descriptor as they arrive, without blocking a cooperative thread.
///
/// `tail -f | loadctl …` must see each line when it is written, and a blocking `read` on one of
/// a machine's few cooperative threads would stall part of the runtime. So a thread of its own
/// (``ReaderThread``, outside the cooperative pool) does the blocking reads and hands lines over
/// through a ``LineChannel``, which holds at most ``bufferedLines`` and otherwise makes the
/// reader wait: a fast pipe is slowed down, never truncated. When the consumer stops, the reader
/// stops at its next line; a reader still blocked in `read` holds no task and ends with the
/// process.
package enum LineSource {
  /// The longest line accepted, in bytes; longer lines are reported, not buffered forever.
  package static let maxLineLength = 64 * 1024
  /// Lines read ahead of the consumer before the reader waits.
  package static let bufferedLines = 4096
  /// The most a pipe or device is read on virtual time, where it is read whole before the run:
  /// beyond either limit the rest is refused (a regular file has no limit: it is read as used).
  package static let maxWholeLines = 1_000_000
  package static let maxWholeBytes = 64 * 1024 * 1024

  /// Streams the lines of `fd`; the stream finishes at end of input or on a read error.
  package static func lines(fd: Int32, closeWhenDone: Bool) -> RawLines {
    let channel = LineChannel(capacity: bufferedLines)
    ReaderThread.start {
      var splitter = LineSplitter()
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      reading: while !channel.isStopped {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        let lines = count > 0 ? splitter.feed(chunk[0..<count]) : splitter.finish()
        for line in lines {
          guard channel.push(line) else { break reading }
        }
        if count <= 0 { break }
      }
      if closeWhenDone { close(fd) }
      channel.finish()
    }
    return RawLines(channel: channel)
  }

  /// Reads `fd` to the end now (blocking), then gives its lines: for virtual time. Past
  /// ``maxWholeLines`` lines or ``maxWholeBytes`` bytes (`yes |`, `/dev/zero`) it stops, and
  /// the next line is one rejected as too much input, so the run ends with status 65 instead of
  /// filling memory or never starting.
  package static func readAll(
    fd: Int32, closeWhenDone: Bool, maxLines: Int = maxWholeLines, maxBytes: Int = maxWholeBytes
  ) -> RawLines {
    var splitter = LineSplitter()
    var lines: [RawLine] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var total = 0
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      lines += count > 0 ? splitter.feed(chunk[0..<count]) : splitter.finish()
      if count <= 0 { break }
      total += count
      if lines.count > maxLines || total > maxBytes {
        lines.removeLast(max(0, lines.count - maxLines))
        lines.append(
          RawLine(
            number: lines.count + 1, text: nil,
            problem: "more input than \(maxLines) lines or \(maxBytes / 1024 / 1024) MiB: on "
              + "virtual time a pipe is read whole before the run; give a regular file"))
        break
      }
    }
    if closeWhenDone { close(fd) }
    return RawLines(lines)
  }

  /// Fixed lines, as if they had been read (positional arguments).
  package static func lines(_ texts: [String]) -> RawLines {
    RawLines(
      texts.enumerated().map { RawLine(number: $0.offset + 1, text: $0.element, problem: nil) })
  }
}

/// Splits bytes into lines, numbering them and checking length and UTF-8.
///
/// A line that lies within one chunk becomes its `String` straight from the chunk: its bytes are
/// copied once. Only a line cut by a chunk's end is gathered first.
package struct LineSplitter: Sendable {
  /// The start of a line cut by the end of the last chunk, at most ``LineSource/maxLineLength``
  /// bytes of it.
  private var pending: [UInt8] = []
  private var number = 0
  /// The line being gathered is longer than ``LineSource/maxLineLength``.
  private var overlong = false
  /// And it was already given as rejected: the rest of it, up to its newline, is skipped.
  private var reported = false

  package init() {}

  /// Returns the complete lines in `bytes` (plus what was pending). A line that grows past
  /// ``LineSource/maxLineLength`` is given as rejected at once, not when its newline comes
  /// (from `/dev/zero` it never does).
  package mutating func feed(_ bytes: ArraySlice<UInt8>) -> [RawLine] {
    var lines: [RawLine] = []
    var start = bytes.startIndex
    while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
      if pending.isEmpty, !overlong {
        number += 1
        lines.append(Self.line(bytes[start..<newline], number: number))
      } else if reported {
        reset()
      } else {
        gather(bytes[start..<newline])
        lines.append(take())
      }
      start = bytes.index(after: newline)
    }
    gather(bytes[start...])
    if overlong, !reported {
      number += 1
      lines.append(Self.overlong(number: number))
      reported = true
      pending.removeAll(keepingCapacity: true)
    }
    return lines
  }

  /// Returns the last line when input ended without a newline.
  package mutating func finish() -> [RawLine] {
    if reported {
      reset()
      return []
    }
    return pending.isEmpty && !overlong ? [] : [take()]
  }

  private mutating func reset() {
    pending.removeAll(keepingCapacity: true)
    overlong = false
    reported = false
  }

  /// Keeps the start of a cut line, up to the longest accepted.
  private mutating func gather(_ bytes: ArraySlice<UInt8>) {
    guard !overlong else { return }
    let room = LineSource.maxLineLength - pending.count
    if bytes.count > room {
      overlong = true
      pending += bytes.prefix(max(room, 0))
    } else {
      pending += bytes
    }
  }

  private mutating func take() -> RawLine {
    number += 1
    defer {
      pending.removeAll(keepingCapacity: true)
      overlong = false
    }
    return overlong ? Self.overlong(number: number) : Self.line(pending[...], number: number)
  }

  /// A line's bytes (without its newline) as an input line: without a final `\r` (and, on the
  /// first line, without a UTF-8 byte-order mark, which editors on Windows write), rejected when
  /// longer than ``LineSource/maxLineLength`` or not UTF-8.
  package static func line(_ bytes: ArraySlice<UInt8>, number: Int) -> RawLine {
    guard bytes.count <= LineSource.maxLineLength else { return overlong(number: number) }
    var text = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes
    if number == 1, text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
    // ASCII, the common case, is valid UTF-8 as it is.
    if text.allSatisfy({ $0 < 0x80 }) {
      return RawLine(number: number, text: String(decoding: text, as: UTF8.self), problem: nil)
    }
    guard let decoded = String(validating: text, as: UTF8.self) else {
      return RawLine(number: number, text: nil, problem: "not valid UTF-8")
    }
    return RawLine(number: number, text: decoded, problem: nil)
  }

  /// The rejected line `number`, longer than ``LineSource/maxLineLength``.
  package static func overlong(number: Int) -> RawLine {
    RawLine(
      number: number, text: nil, problem: "line longer than \(LineSource.maxLineLength) bytes")
  }
}
