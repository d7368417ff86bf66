#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a ``Subprocess`` produced no result.
public enum SubprocessError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The task was cancelled; the process group had been torn down and reaped by then.
  case cancelled
  /// The command could not be started (`posix_spawn`, a pipe or the reader thread failed).
  case spawnFailed(executable: String, errno: Int32)

  /// E.g. `cannot run /bin/nope: No such file or directory`.
  public var description: String {
    switch self {
    case .cancelled: "cancelled"
    case .spawnFailed(let executable, let code):
      "cannot run \(executable): \(strerror(code).map { String(cString: $0) } ?? "error \(code)")"
    }
  }
}
