import LoadctlCore

/// Why a run is being stopped from outside the flow.
package enum ShutdownReason: Sendable, Equatable {
  /// SIGINT, SIGTERM or SIGHUP.
  case signal(UnixSignal)
  /// The reader of stdout went away (`| head`).
  case brokenPipe
  /// Writing to stdout failed for another reason (`errno`, e.g. `ENOSPC` on a full disk).
  case writeFailed(Int32)
  /// The person asked to quit (`q` at an interactive terminal): a normal end.
  case quit

  /// The `end` event's `reason`.
  package var endReason: String {
    switch self {
    case .signal(.interrupt): "interrupted"
    case .signal(.hangup): "hangup"
    case .signal: "terminated"
    case .brokenPipe: "broken_pipe"
    case .writeFailed: "write_failed"
    case .quit: "completed"
    }
  }
}
