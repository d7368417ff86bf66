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
/// does the blocking reads. The keys that stand for signals act on that thread as they are
/// read, as the terminal's own signals would: Ctrl-C calls `interrupt` (every time: a second
/// one forces the exit), Ctrl-Z stops the process group and Ctrl-\ quits it, however many keys
/// wait before them and whether or not the flow is taking keys. The other keys are queued.
/// Once nobody takes keys (the flow ended, or was interrupted), the thread still reads until
/// end of input, so that a second Ctrl-C during the cleanup forces the exit; other keys are
/// then dropped. End of input ends the stream; a read refused because the job was moved to the
/// background waits for the foreground (see ``Foreground``).
package enum KeyReader {
  package static func keys(fd: Int32 = 0, interrupt: @escaping @Sendable () -> Void) -> AsyncStream<
    Key
  > {
    let (stream, continuation) = AsyncStream<Key>.makeStream()
    let stopped = StopFlag()
    continuation.onTermination = { @Sendable _ in stopped.stop() }
    ReaderThread.start {
      var decoder = KeyDecoder()
      var buffer = [UInt8](repeating: 0, count: 256)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count < 0, errno == EIO,
          Foreground.waitAfterReadError(fd: fd, isStopped: { stopped.isStopped })
        {
          continue
        }
        if count <= 0 { break }
        for key in decoder.decode(buffer[0..<count]) {
          switch key {
          case .interrupt: interrupt()
          case .suspend: kill(0, SIGTSTP)
          case .quit: kill(0, SIGQUIT)
          default: if !stopped.isStopped { continuation.yield(key) }
          }
        }
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
