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

  /// Sends SIGKILL to every live group, synchronously; for the shutdown path right before exit.
  ///
  /// It only signals (one lock, no allocation); the reader threads reap what dies, and if the
  /// process exits first, init does. Runners still waiting report `killed by SIGKILL`.
  public static func terminateAll() {
    live.withLock { groups in
      for group in groups { kill(-group, SIGKILL) }
    }
  }
}
