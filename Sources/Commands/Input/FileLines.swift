#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lines of a regular file, read on the consumer's task a chunk at a time, when the lines
/// already read are used up.
///
/// ``LineSource`` reads ahead on a thread of its own so that a live pipe is never left unread;
/// a regular file can wait, and reading it does not block for long, so it needs neither the
/// thread nor a hand-over: memory stays flat and no line is lost. The file is closed at its end
/// or when the reader goes away.
package final class FileLines: AsyncIteratorProtocol {
  package typealias Element = RawLine
  package typealias Failure = Never

  private let fd: Int32
  private let closeWhenDone: Bool
  private var open = true
  private var splitter = LineSplitter()
  private var ready: [RawLine] = []
  private var readyIndex = 0
  private var chunk: [UInt8] = []

  /// - Parameters:
  ///   - fd: A regular file (see ``isRegularFile(_:)``).
  ///   - closeWhenDone: Close `fd` at end of input or when the reader goes away.
  package init(fd: Int32, closeWhenDone: Bool) {
    self.fd = fd
    self.closeWhenDone = closeWhenDone
  }

  deinit {
    close()
  }

  package func next(isolation actor: isolated (any Actor)?) async -> RawLine? {
    nextLine()
  }

  package func next() async -> RawLine? {
    nextLine()
  }

  /// The next line, reading the next chunk if needed; `nil` at end of input.
  package func nextLine() -> RawLine? {
    while readyIndex == ready.count {
      guard open else { return nil }
      if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 64 * 1024) }
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      ready = count > 0 ? splitter.feed(chunk[0..<count]) : splitter.finish()
      readyIndex = 0
      if count <= 0 { close() }
    }
    defer { readyIndex += 1 }
    return ready[readyIndex]
  }

  private func close() {
    guard open else { return }
    open = false
    guard closeWhenDone else { return }
    #if canImport(Glibc)
      _ = Glibc.close(fd)
    #else
      _ = Darwin.close(fd)
    #endif
  }

  /// Whether `fd` is a regular file (rather than a pipe, a terminal or a device).
  package static func isRegularFile(_ fd: Int32) -> Bool {
    var info = stat()
    return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }
}
