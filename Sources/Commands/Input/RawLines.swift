import LoadctlCore

/// Input lines as a flow reads them: a regular file read on the reader's own task as its lines
/// are used (``FileLines``), or a stream of lines (from a pipe or terminal that a reader thread
/// fills, from input read ahead for virtual time, or from arguments).
///
/// The file's lines are read without leaving the reader's executor, so a run reading a large
/// file pays no task switch per line. Iterate it once: every iterator shares the one file.
package struct RawLines: AsyncSequence, Sendable {
  package typealias Element = RawLine
  package typealias Failure = Never

  private enum Source: Sendable {
    case stream(AsyncStream<RawLine>)
    case file(Locked<FileLines>)
  }

  private let source: Source

  /// The lines of `stream`.
  package init(_ stream: AsyncStream<RawLine>) { source = .stream(stream) }

  /// The lines of the regular file `fd`, read a chunk at a time when they are used up; `fd` is
  /// closed at its end (when `closeWhenDone`).
  package init(file fd: Int32, closeWhenDone: Bool) {
    source = .file(Locked(FileLines(fd: fd, closeWhenDone: closeWhenDone)))
  }

  package func makeAsyncIterator() -> Iterator {
    switch source {
    case .stream(let stream): Iterator(stream: stream.makeAsyncIterator(), file: nil)
    case .file(let file): Iterator(stream: nil, file: file)
    }
  }

  /// Reads the file on the caller's executor, or waits for the stream.
  package struct Iterator: AsyncIteratorProtocol {
    var stream: AsyncStream<RawLine>.Iterator?
    let file: Locked<FileLines>?

    package mutating func next() async -> RawLine? { await next(isolation: #isolation) }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> RawLine? {
      if let file { return file.withLock { $0.nextLine() } }
      return await stream?.next(isolation: actor)
    }
  }
}
