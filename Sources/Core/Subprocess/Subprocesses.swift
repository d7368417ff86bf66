#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process groups of every running ``Subprocess``, for the app's last moment.
public enum Subprocesses {
  /// Group ids from spawn until the command is reaped; a group is removed before its lifeline
  /// watcher (which keeps the id from being reused) is reaped, so a kill never hits a stranger.
  static let live = Locked<[pid_t]>([])
  /// Set by ``terminateAllForExit()``: reader threads then reap and report nothing.
  private static let exiting = Locked(false)

  /// Sends SIGKILL to every live group, synchronously.
  ///
  /// It only signals (one lock, no allocation); the reader threads reap what dies, and runners
  /// still waiting report `killed by SIGKILL`.
  public static func terminateAll() {
    live.withLock { groups in
      for group in groups { kill(-group, SIGKILL) }
    }
  }

  /// Sends SIGKILL to every live group for the process's own end, which must follow at once
  /// (`exit`, or death by a signal).
  ///
  /// From this call on, no runner learns that its command died: reader threads stop before
  /// reaping, so nothing the rest of the process does before it ends can take the kill for the
  /// command's own end and report it (an `end` line, an exit status instead of the signal).
  public static func terminateAllForExit() {
    exiting.withLock { $0 = true }
    terminateAll()
  }

  /// Whether ``terminateAllForExit()`` was called.
  static var isExiting: Bool { exiting.withLock { $0 } }
}
