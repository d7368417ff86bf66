import LoadctlCore

/// Input lines as a flow reads them: a regular file read on the reader's own task as its lines
/// are used (``FileLines``), the lines a reader thread hands over from a pipe or terminal
/// (``LineChannel``), or lines known before the run (input read ahead for virtual time,
/// arguments).
///
/// Each is read by the iterator itself, with no stream in between: the file's lines without
/// leaving the reader's executor (no task switch per line), the channel's straight from the
/// reader thread's hand-over. Iterate it once: every iterator shares the one file or channel.
package struct RawLines: AsyncSequence, Sendable {
  package typealias Element = RawLine
  package typealias Failure = Never

  private enum Source: Sendable {
    case lines([RawLine])
    case channel(LineChannel)
    case file(Locked<FileLines>)
  }

  private let source: Source

  /// Lines known now.
  package init(_ lines: [RawLine]) { source = .lines(lines) }

  /// The lines a reader thread pushes into `channel`; the channel is stopped when the reader of
  /// these lines is cancelled or goes away, so that the thread stops too.
  init(channel: LineChannel) { source = .channel(channel) }

  /// The lines of the regular file `fd`, read a chunk at a time when they are used up; `fd` is
  /// closed at its end (when `closeWhenDone`).
  package init(file fd: Int32, closeWhenDone: Bool) {
    source = .file(Locked(FileLines(fd: fd, closeWhenDone: closeWhenDone)))
  }

  package func makeAsyncIterator() -> Iterator {
    switch source {
    case .lines(let lines): Iterator(source: .lines(lines[...]))
    case .channel(let channel): Iterator(source: .channel(ChannelReader(channel)))
    case .file(let file): Iterator(source: .file(file))
    }
  }

  /// Takes the next known line, reads the file on the caller's executor, or waits for the
  /// reader thread.
  package struct Iterator: AsyncIteratorProtocol {
    fileprivate enum Source {
      case lines(ArraySlice<RawLine>)
      case channel(ChannelReader)
      case file(Locked<FileLines>)
    }

    fileprivate var source: Source

    package mutating func next() async -> RawLine? { await next(isolation: #isolation) }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> RawLine? {
      // Only the channel may have to wait; known lines and a file's are there now.
      if case .channel(let reader) = source { return await reader.channel.next() }
      return nextReady()
    }
  }
}

extension RawLines.Iterator: ReadyIterator {
  /// A known line, the file's next line (a regular file's read does not wait for long), or a
  /// line the reader thread has already handed over.
  package mutating func nextReady() -> RawLine? {
    switch source {
    case .lines(var lines):
      let line = lines.popFirst()
      source = .lines(lines)
      return line
    case .channel(let reader): return reader.channel.nextReady()
    case .file(let file): return file.withLock { $0.nextLine() }
    }
  }
}

/// Stops its channel when the last iterator holding it goes away, so that a consumer that
/// stops early (a `break` out of its loop) also stops the reader thread.
private final class ChannelReader: Sendable {
  let channel: LineChannel

  init(_ channel: LineChannel) { self.channel = channel }

  deinit { channel.stop() }
}
