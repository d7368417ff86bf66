import LoadctlCore

/// Why a run is being stopped from outside the flow.
package enum ShutdownReason: Sendable, Equatable {
  /// SIGINT or SIGTERM.
  case signal(UnixSignal)
  /// The reader of stdout went away (`| head`).
  case brokenPipe
  /// The person asked to quit (`q` at an interactive terminal): a normal end.
  case quit

  /// The `end` event's `reason`.
  package var endReason: String {
    switch self {
    case .signal(.interrupt): "interrupted"
    case .signal(.terminate): "terminated"
    case .brokenPipe: "broken_pipe"
    case .quit: "completed"
    }
  }
}
