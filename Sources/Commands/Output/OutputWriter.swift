import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Buffered writes to a file descriptor with explicit flushes and broken-pipe detection.
///
/// Into a pipe, stdio buffers fully: lines written half a second apart arrive together at exit,
/// and a process that dies by a signal loses them. This writer buffers only until ``flush()``
/// (callers flush after each event or burst) or until the buffer is large, and it reports a closed
/// reader (`EPIPE`, with `SIGPIPE` ignored) once through `onBrokenPipe` instead of dying mid-line.
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
  }

  private let fd: Int32
  private let limit: Int
  private let buffer = Locked(Buffer())
  private let onBrokenPipe: @Sendable () -> Void

  /// Creates a writer for `fileDescriptor`.
  /// - Parameters:
  ///   - fileDescriptor: 1 for stdout, 2 for stderr, or any open descriptor.
  ///   - flushThreshold: Flush automatically once this many bytes are buffered.
  ///   - onBrokenPipe: Called once, from the writing thread, when the reader has gone.
  public init(
    fileDescriptor: Int32, flushThreshold: Int = 64 * 1024,
    onBrokenPipe: @escaping @Sendable () -> Void = {}
  ) {
    self.fd = fileDescriptor
    self.limit = flushThreshold
    self.onBrokenPipe = onBrokenPipe
  }

  /// Whether the reader has closed the pipe; later writes are discarded.
  public var isBroken: Bool { buffer.withLock { $0.broken } }

  /// Buffers `text`, flushing if the buffer grew past the threshold.
  public func write(_ text: String) {
    let full = buffer.withLock { buffer in
      guard !buffer.broken else { return false }
      buffer.bytes.append(contentsOf: text.utf8)
      return buffer.bytes.count >= limit
    }
    if full { flush() }
  }

  /// Buffers `bytes` (UTF-8 text), flushing if the buffer grew past the threshold.
  ///
  /// For hot paths that build their lines as bytes (see `JSONValue.write(to:)` for `[UInt8]`).
  public func write(_ bytes: [UInt8]) {
    let full = buffer.withLock { buffer in
      guard !buffer.broken else { return false }
      buffer.bytes.append(contentsOf: bytes)
      return buffer.bytes.count >= limit
    }
    if full { flush() }
  }

  /// Lets `body` append bytes (UTF-8 text) to the buffer in place, then flushes if the buffer grew
  /// past the threshold; `body` is not called once the reader has gone.
  ///
  /// For the hottest paths: a line built here is neither copied nor held in a buffer of its own.
  /// `body` runs under the writer's lock, so it must not call the writer.
  public func write(appending body: (inout [UInt8]) -> Void) {
    let full = buffer.withLock { buffer in
      guard !buffer.broken else { return false }
      body(&buffer.bytes)
      return buffer.bytes.count >= limit
    }
    if full { flush() }
  }

  /// Writes everything buffered now.
  public func flush() {
    let newlyBroken = buffer.withLock { buffer -> Bool in
      guard !buffer.broken, !buffer.bytes.isEmpty else { return false }
      let failed = buffer.bytes.withUnsafeBytes { raw in
        !OutputWriter.writeAll(fd: fd, raw)
      }
      buffer.bytes.removeAll(keepingCapacity: buffer.bytes.count <= limit * 2)
      if failed { buffer.broken = true }
      return failed
    }
    if newlyBroken { onBrokenPipe() }
  }

  /// Writes all bytes, retrying short writes and `EINTR`; `false` on any other error.
  private static func writeAll(fd: Int32, _ raw: UnsafeRawBufferPointer) -> Bool {
    guard var base = raw.baseAddress else { return true }
    var remaining = raw.count
    while remaining > 0 {
      let written = Glibc.write(fd, base, remaining)
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      remaining -= written
      base += written
    }
    return true
  }

  /// Makes a closed pipe an `EPIPE` error instead of a fatal signal; call once at start-up.
  public static func ignoreBrokenPipeSignal() {
    _ = signal(SIGPIPE, SIG_IGN)
  }
}
