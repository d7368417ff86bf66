#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failure of the end-to-end harness, worded so that the test report alone explains it.
///
/// A failsafe timeout is not a timing assertion: when it fires, the message carries everything
/// the process wrote so far, so the failing test shows what loadctl did instead.
struct HarnessError: Error, CustomStringConvertible {
  private enum Code: Sendable {
    case spawnFailed
    case binaryNotFound
    case timedOut
    case streamEnded
    case ioFailed
    case serverFailed
    case invalidJSON
  }

  private let code: Code
  /// The full explanation, including any captured output.
  let description: String

  private init(_ code: Code, _ description: String) {
    self.code = code
    self.description = description
  }

  /// True when a failsafe timeout fired.
  var isTimeout: Bool { code == .timedOut }

  /// True when a stream closed before the awaited line arrived.
  var isStreamEnded: Bool { code == .streamEnded }

  static func spawnFailed(_ executable: String, errno: Int32) -> HarnessError {
    HarnessError(.spawnFailed, "could not start \(executable): \(errnoText(errno))")
  }

  static func binaryNotFound(_ name: String, searched: [String]) -> HarnessError {
    let list = searched.map { "  \($0)" }.joined(separator: "\n")
    return HarnessError(
      .binaryNotFound,
      "no executable '\(name)' found (set LOADCTL_BIN to its path); searched:\n\(list)")
  }

  static func timedOut(_ what: String, after timeout: Duration, output: String) -> HarnessError {
    HarnessError(.timedOut, "timed out after \(timeout) waiting for \(what)\n\(output)")
  }

  static func streamEnded(_ what: String, output: String) -> HarnessError {
    HarnessError(.streamEnded, "output ended before \(what)\n\(output)")
  }

  static func ioFailed(_ action: String, errno: Int32) -> HarnessError {
    HarnessError(.ioFailed, "\(action) failed: \(errnoText(errno))")
  }

  static func invalidJSON(line: Int, text: String, reason: String) -> HarnessError {
    HarnessError(.invalidJSON, "line \(line) is not a JSON object (\(reason)): \(text)")
  }

  static func serverFailed(_ message: String) -> HarnessError {
    HarnessError(.serverFailed, message)
  }
}

/// `strerror` plus the number, for messages.
func errnoText(_ code: Int32) -> String {
  "\(String(cString: strerror(code))) (errno \(code))"
}
