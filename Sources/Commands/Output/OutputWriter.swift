import LoadctlCore
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Buffered writes to a file descriptor with explicit flushes and write-error detection.
///
/// Into a pipe, stdio buffers fully: lines written half a second apart arrive together at exit,
/// and a process that dies by a signal loses them. This writer buffers only until ``flush()``
/// (callers flush after each event or burst) or until the buffer is large. A closed reader
/// (`EPIPE`, with `SIGPIPE` ignored) is reported once through `onBrokenPipe`, any other write
/// error (`ENOSPC`, `EIO`, …) once through `onError`, and later writes are discarded. A
/// non-blocking descriptor (`EAGAIN`) is waited for with `poll`, so a line is never cut.
///
/// After ``enterForcedExit()`` no flush waits: one that would block, or whose buffer another
/// thread holds (stuck in a write), gives up and the bytes are lost.
///
/// ```swift
/// let out = OutputWriter(fileDescriptor: 1)
/// out.write("  1.002s  profile  loading → loaded\n")
/// out.flush()
/// ```
public final class OutputWriter: Sendable {
  private struct Buffer {
    var bytes: [UInt8] = []
    var broken = false
    var failure: Int32?
  }

  /// Why writing stopped.
  enum Failure: Equatable {
    case brokenPipe
    case error(Int32)
  }

  private let fd: Int32
  private let limit: Int
  /// How many buffered bytes make a write flush.
  var flushThreshold: Int { limit }
  private let buffer = Locked(Buffer())
  private let onBrokenPipe: @Sendable () -> Void
  private let onError: @Sendable (Int32) -> Void

  /// Set once the process is about to end at once: flushes then never wait.
  private static let forcedExit = Atomic<Bool>(false)

  /// Creates a writer for `fileDescriptor`.
  /// - Parameters:
  ///   - fileDescriptor: 1 for stdout, 2 for stderr, or any open descriptor.
  ///   - flushThreshold: Flush automatically once this many bytes are buffered.
  ///   - onBrokenPipe: Called once, from the writing thread, when the reader has gone.
  ///   - onError: Called once, from the writing thread, with `errno` of any other failed write.
  public init(
    fileDescriptor: Int32, flushThreshold: Int = 64 * 1024,
    onBrokenPipe: @escaping @Sendable () -> Void = {},
    onError: @escaping @Sendable (Int32) -> Void = { _ in }
  ) {
    self.fd = fileDescriptor
    self.limit = flushThreshold
    self.onBrokenPipe = onBrokenPipe
    self.onError = onError
  }

  /// Whether writing failed (the reader closed the pipe, or an error); later writes are discarded.
  public var isBroken: Bool { buffer.withLock { $0.broken } }

  /// The `errno` of the write that failed (`EPIPE` for a closed reader), or `nil`.
  public var failure: Int32? { buffer.withLock { $0.failure } }

  /// From now on, in every writer, a flush that would wait gives up instead.
  public static func enterForcedExit() {
    forcedExit.store(true, ordering: .sequentiallyConsistent)
  }

  /// Buffers `text`, flushing if the buffer grew past the threshold.
  public func write(_ text: String) {
    let full = buffer.withLock { buffer in
      guard !buffer.broken else { return false }
      buffer.bytes.append(contentsOf: text.utf8)
      return buffer.bytes.count >= limit
    }
    if full { flush() }
  }

  /// Lets `body` append UTF-8 text to the buffer in place (it must not use this writer), then
  /// flushes if the buffer grew past the threshold; once writing failed, `body` is not called.
  /// - Returns: Whether `body` was called.
  @discardableResult
  func write(_ body: (inout [UInt8]) -> Void) -> Bool {
    let (called, full) = buffer.withLock { buffer in
      guard !buffer.broken else { return (false, false) }
      body(&buffer.bytes)
      return (true, buffer.bytes.count >= limit)
    }
    if full { flush() }
    return called
  }

  /// Buffers `bytes` (UTF-8 text), flushing if the buffer grew past the threshold.
  public func write(_ bytes: [UInt8]) {
    let full = buffer.withLock { buffer in
      guard !buffer.broken else { return false }
      buffer.bytes.append(contentsOf: bytes)
      return buffer.bytes.count >= limit
    }
    if full { flush() }
  }

  /// Writes everything buffered now (after ``enterForcedExit()``, only what can go without
  /// waiting, and nothing while another thread holds the buffer).
  /// - Returns: `false` when, after ``enterForcedExit()``, another thread held the buffer.
  @discardableResult
  public func flush() -> Bool {
    let forced = Self.forcedExit.load(ordering: .sequentiallyConsistent)
    let drain = { [fd, limit] (buffer: inout Buffer) -> Failure? in
      guard !buffer.broken, !buffer.bytes.isEmpty else { return nil }
      let failure = buffer.bytes.withUnsafeBytes { raw in
        OutputWriter.writeAll(fd: fd, raw, waiting: !forced)
      }
      buffer.bytes.removeAll(keepingCapacity: buffer.bytes.count <= limit * 2)
      switch failure {
      case nil: break
      case .brokenPipe: buffer.failure = EPIPE
      case .error(let code): buffer.failure = code
      }
      if failure != nil { buffer.broken = true }
      return failure
    }
    let failure: Failure?
    if forced {
      guard let drained = buffer.withLockIfAvailable({ drain(&$0) }) else { return false }
      failure = drained
    } else {
      failure = buffer.withLock { drain(&$0) }
    }
    switch failure {
    case nil: break
    case .brokenPipe: onBrokenPipe()
    case .error(let code): if !forced { onError(code) }
    }
    return true
  }

  /// Writes all bytes, retrying short writes and `EINTR` and waiting out `EAGAIN`.
  ///
  /// With `waiting` false it writes only while `poll` says the descriptor is ready, at most a
  /// pipe's atomic size at a time and, where the bytes allow, whole lines only, and gives up
  /// (silently) when it is not: what a reader gets of a forced exit's last events ends with a
  /// whole line, unless one line alone is longer than that size.
  static func writeAll(fd: Int32, _ raw: UnsafeRawBufferPointer, waiting: Bool) -> Failure? {
    guard var base = raw.baseAddress else { return nil }
    var remaining = raw.count
    while remaining > 0 {
      if !waiting, !isWritable(fd, timeout: 0) { return nil }
      var count = waiting ? remaining : min(remaining, Int(PIPE_BUF))
      if count < remaining,
        let newline = UnsafeRawBufferPointer(start: base, count: count).lastIndex(
          of: UInt8(ascii: "\n"))
      {
        count = newline + 1
      }
      let written = systemWrite(fd, base, count)
      if written < 0 {
        switch errno {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK:
          if waiting { _ = isWritable(fd, timeout: -1) }
          continue
        case EPIPE: return .brokenPipe
        case let code: return .error(code)
        }
      }
      remaining -= written
      base += written
    }
    return nil
  }

  /// Waits up to `timeout` milliseconds (-1: forever) until `fd` can take a write.
  private static func isWritable(_ fd: Int32, timeout: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    while true {
      let ready = poll(&entry, 1, timeout)
      if ready < 0, errno == EINTR { continue }
      return ready > 0
    }
  }

  /// Makes a closed pipe an `EPIPE` error instead of a fatal signal; call once at start-up.
  public static func ignoreBrokenPipeSignal() {
    _ = signal(SIGPIPE, SIG_IGN)
  }
}

/// The system's `write(2)`, by a name no method of ``OutputWriter`` shadows.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
  #else
    Darwin.write(fd, buffer, count)
  #endif
}
