import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lines of a regular file, read only when the next one is asked for.
///
/// ``LineSource`` reads ahead on a dispatch thread so that a live pipe is never left unread, and
/// keeps at most 4096 lines; for a large regular file that read-ahead outruns any consumer. A
/// regular file can wait, so here each `next()` reads the next 64 KiB chunk only when the lines
/// already read are used up: memory stays flat and no line is lost. Reading a regular file does
/// not block for long (it is what ``InputFile/readAll(_:option:limit:)`` does too), so it is done
/// on the calling task.
package enum PriceFeedFileLines {
  /// Streams the lines of `fd`, which must be a regular file.
  package static func lines(fd: Int32, closeWhenDone: Bool) -> AsyncStream<RawLine> {
    let reader = ChunkReader(fd: fd, closeWhenDone: closeWhenDone)
    return AsyncStream(unfolding: { reader.next() }, onCancel: { reader.close() })
  }

  /// Whether `fd` is a regular file (rather than a pipe, a terminal or a device).
  package static func isRegularFile(_ fd: Int32) -> Bool {
    var info = stat()
    return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }
}

/// Reads chunks on demand and splits them into lines; one reader at a time (the stream's).
private final class ChunkReader: Sendable {
  /// What has been read and not yet handed out.
  private struct State {
    var splitter = LineSplitter()
    var ready: [RawLine] = []
    var nextIndex = 0
    var open = true
  }

  private let fd: Int32
  private let closeWhenDone: Bool
  private let state = Locked(State())

  init(fd: Int32, closeWhenDone: Bool) {
    self.fd = fd
    self.closeWhenDone = closeWhenDone
  }

  func next() -> RawLine? {
    state.withLock { state -> RawLine? in
      var chunk: [UInt8] = []
      while state.nextIndex == state.ready.count {
        guard state.open else { return nil }
        if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 64 * 1024) }
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        state.ready = count > 0 ? state.splitter.feed(chunk[0..<count]) : state.splitter.finish()
        state.nextIndex = 0
        if count <= 0 { closeLocked(&state) }
      }
      defer { state.nextIndex += 1 }
      return state.ready[state.nextIndex]
    }
  }

  func close() {
    state.withLock { closeLocked(&$0) }
  }

  private func closeLocked(_ state: inout State) {
    guard state.open else { return }
    state.open = false
    if closeWhenDone { _ = Glibc.close(fd) }
  }
}
