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
/// wait before them and whether or not the flow is taking keys. The other keys are queued in
/// bursts: after a read, the reader goes on reading whatever is already there, without waiting,
/// up to ``burstLimit`` bytes, and the keys of all those reads are one burst (a paste the
/// terminal delivers in many pieces, keys held down); a burst of ``pasteBytes`` or more waits
/// up to `escapeTimeout` for the paste's next piece. Once nobody takes keys (the flow ended, or
/// was interrupted), the thread still reads until end of input, so that a second Ctrl-C during
/// the cleanup forces the exit; other keys are then dropped. When the bytes there end inside an
/// escape sequence, the reader waits up to `escapeTimeout` for the rest (vim's `ttimeout`),
/// which joins the same burst; if none comes, the bytes are taken as they are, so Esc pressed
/// alone arrives that much later. End of input ends the stream; a read refused because the job
/// was moved to the background waits for the foreground (see ``Foreground``).
package enum KeyReader {
  /// How long the rest of an escape sequence may take to arrive.
  package static let escapeTimeout: Duration = .milliseconds(50)
  /// The most bytes one `read` asks for.
  package static let readSize = 64 * 1024
  /// A burst of at least this many bytes is a paste (keys typed between two reads are fewer),
  /// whose next piece the terminal may take a moment to hand over: the burst waits up to
  /// `escapeTimeout` for more before it ends.
  package static let pasteBytes = 64
  /// Once a burst holds the keys of this many bytes, it is queued without reading on; the rest
  /// of the input is the next burst.
  package static let burstLimit = 1024 * 1024

  /// The keys read from `fd` until its end, in bursts: the keys of the bytes that were there to
  /// read together (a paste, keys held down), so that a flow can take a burst as one change.
  /// Ctrl-C calls `interrupt` instead.
  package static func bursts(
    fd: Int32 = 0, escapeTimeout: Duration = escapeTimeout,
    interrupt: @escaping @Sendable () -> Void = {}
  ) -> AsyncStream<[Key]> {
    let (stream, continuation) = AsyncStream<[Key]>.makeStream()
    let stopped = StopFlag()
    continuation.onTermination = { @Sendable _ in stopped.stop() }
    ReaderThread.start {
      var decoder = KeyDecoder()
      var buffer = [UInt8](repeating: 0, count: readSize)
      // The keys of the burst being read, and how many bytes it took so far.
      var burst: [Key] = []
      var burstBytes = 0
      func take(_ keys: [Key]) {
        for key in keys {
          switch key {
          case .interrupt: interrupt()
          case .suspend: kill(0, SIGTSTP)
          case .quit: kill(0, SIGQUIT)
          default: burst.append(key)
          }
        }
      }
      func deliver() {
        if !burst.isEmpty, !stopped.isStopped { continuation.yield(burst) }
        burst = []
        burstBytes = 0
      }
      while true {
        // A burst ends when nothing more is there to read, or the rest of an escape sequence
        // did not come in time; the first read of the next one waits as long as it takes.
        if burstBytes > 0 || decoder.hasPendingEscape {
          if burstBytes >= burstLimit {
            deliver()
            continue
          }
          let more =
            hasInput(fd, within: .zero)
            || ((decoder.hasPendingEscape || burstBytes >= pasteBytes)
              && hasInput(fd, within: escapeTimeout))
          if !more {
            // An incomplete UTF-8 character waits on, for the next burst.
            if decoder.hasPendingEscape { take(decoder.flushPending()) }
            deliver()
            continue
          }
        }
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count < 0, errno == EIO {
          deliver()
          if Foreground.waitAfterReadError(fd: fd, isStopped: { stopped.isStopped }) { continue }
        }
        if count <= 0 { break }
        burstBytes += count
        take(decoder.decode(buffer[0..<count]))
      }
      take(decoder.flushPending())
      deliver()
      continuation.finish()
    }
    return stream
  }

  /// Whether `fd` has bytes (or its end) to read within `timeout`; a signal does not cut the
  /// wait short. A failing `poll` counts as no input.
  static func hasInput(_ fd: Int32, within timeout: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, milliseconds(clock.now.duration(to: deadline)))
      if ready < 0, errno == EINTR { continue }
      return ready > 0
    }
  }

  /// `duration` in whole milliseconds, rounded up, for `poll`: at least 0, at most `Int32.max`.
  static func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, duration > .zero else { return 0 }
    guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
    let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(seconds * 1000 + fraction)
  }
}

/// Tells a reader thread that nobody listens any more.
final class StopFlag: Sendable {
  private let flag = Locked(false)
  var isStopped: Bool { flag.withLock { $0 } }
  func stop() { flag.withLock { $0 = true } }
}
