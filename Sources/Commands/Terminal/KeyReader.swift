import Dispatch
import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keys from a raw-mode terminal as they are pressed.
///
/// Like ``LineSource``, a thread of its own (``ReaderThread``), outside the cooperative pool,
/// does the blocking reads.
/// End of input ends the stream.
package enum KeyReader {
  package static func keys(fd: Int32 = 0) -> AsyncStream<Key> {
    let (stream, continuation) = AsyncStream<Key>.makeStream()
    let stopped = StopFlag()
    continuation.onTermination = { @Sendable _ in stopped.stop() }
    ReaderThread.start {
      var decoder = KeyDecoder()
      var buffer = [UInt8](repeating: 0, count: 256)
      while !stopped.isStopped {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        for key in decoder.decode(buffer[0..<count]) { continuation.yield(key) }
      }
      continuation.finish()
    }
    return stream
  }
}

/// Tells a reader thread that nobody listens any more.
final class StopFlag: Sendable {
  private let flag = Locked(false)
  var isStopped: Bool { flag.withLock { $0 } }
  func stop() { flag.withLock { $0 = true } }
}
