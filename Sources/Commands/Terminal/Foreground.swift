#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Job control for a run that reads keys: whether its process group owns the terminal, and
/// waiting until it does.
///
/// A background job (`loadctl counter &`, or `bg` after Ctrl-Z) must neither change the
/// terminal's modes nor read from it: the shell in the foreground owns both. The threads that
/// touch the terminal block SIGTTIN and SIGTTOU, so the kernel would let a background
/// `tcsetattr` through and fail a background `read` with EIO instead of stopping the job; these
/// checks put the job control back.
enum Foreground {
  /// Whether `fd` is the process's controlling terminal and another process group is in its
  /// foreground. A terminal that is not the controlling one (no job control applies) or one that
  /// is gone is not.
  static func isBackground(fd: Int32) -> Bool {
    let group = tcgetpgrp(fd)
    return group >= 0 && group != getpgrp()
  }

  /// Before raw mode: while the process runs in the background, stops it as a terminal read
  /// would (SIGTTIN: the shell shows the job as stopped, `fg` continues it), then checks again.
  /// - Returns: `false` when `isCancelled` says the run is being stopped meanwhile.
  static func waitForTerminal(fd: Int32, isCancelled: () -> Bool) -> Bool {
    while isBackground(fd: fd) {
      guard !isCancelled() else { return false }
      stopByTerminalInput()
      // If SIGTTIN is ignored, this only paces the checks.
      usleep(100_000)
    }
    return true
  }

  /// Stops the process by SIGTTIN's default action, as the kernel does a background job that
  /// reads its terminal; returns once continued. The signal goes to this thread with SIGTTIN
  /// unblocked for the moment (the runtime's threads keep it blocked).
  private static func stopByTerminalInput() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGTTIN)
    var previous = sigset_t()
    pthread_sigmask(SIG_UNBLOCK, &set, &previous)
    raise(SIGTTIN)
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }

  /// After a read failed with EIO: if the process was moved to the background (`bg`), waits
  /// until it is in the foreground again and returns `true` (read again); `false` when the
  /// terminal is gone (a hangup) or `isStopped` says nobody reads keys any more.
  static func waitAfterReadError(fd: Int32, isStopped: () -> Bool) -> Bool {
    // EIO in the foreground: the terminal itself is gone.
    guard isBackground(fd: fd) else { return false }
    while isBackground(fd: fd) {
      guard !isStopped() else { return false }
      usleep(100_000)
    }
    return !isStopped()
  }
}
