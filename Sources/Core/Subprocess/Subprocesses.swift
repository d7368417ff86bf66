#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every running ``Subprocess`` of this process, for what concerns them all: suspending and
/// resuming the job, the app's last moment, and the orphans they leave.
public enum Subprocesses {
  struct Registry {
    /// Group ids from spawn until the command is reaped; a group is removed before its lifeline
    /// watcher (which keeps the id from being reused) is reaped, so a kill never hits a stranger.
    var groups: [pid_t] = []
    /// Children that their own runner reaps (commands and watchers), until reaped: an orphan
    /// sweep leaves them alone.
    var known: Set<pid_t> = []
    /// The numbers of running commands, in their tags while orphans are adopted.
    var tags: Set<Int> = []
    /// When the latest SIGKILL of any teardown so far is (or was) due.
    var lastKillDue: ContinuousClock.Instant?
    /// Set by ``terminateAllForExit(orphanWait:)``: reader threads then reap and report nothing.
    var exiting = false
    /// Set by ``adoptOrphans()``.
    var adopting = false
    /// Set by ``observe(_:)``.
    var observer: (@Sendable (SubprocessNotice) -> Void)?
  }

  static let registry = Locked(Registry())

  /// Sends SIGKILL to every live group, synchronously; the reader threads reap what dies, and
  /// runners still waiting report `killed by SIGKILL`.
  ///
  /// While orphans are adopted (``adoptOrphans()``), every process below this one gets SIGKILL
  /// too, wherever it stands, and the call waits up to `orphanWait` for them to die, so that none
  /// is left to init.
  public static func terminateAll(orphanWait: Duration = .seconds(2)) {
    signalAll(SIGKILL)
    if isAdopting { ChildProcess.killAllOrphans(deadline: orphanWait) }
  }

  /// Sends SIGKILL to every live group for the process's own end, which must follow at once
  /// (`exit`, or death by a signal).
  ///
  /// From this call on, no runner learns that its command died: reader threads stop before
  /// reaping, so nothing the rest of the process does before it ends can take the kill for the
  /// command's own end and report it (an `end` line, an exit status instead of the signal).
  public static func terminateAllForExit(orphanWait: Duration = .seconds(2)) {
    registry.withLock { $0.exiting = true }
    terminateAll(orphanWait: orphanWait)
  }

  /// Stops every live group (SIGSTOP), so that suspending this process suspends its commands.
  public static func suspendAll() {
    signalAll(SIGSTOP)
  }

  /// Continues every live group (SIGCONT), after ``suspendAll()``.
  public static func resumeAll() {
    signalAll(SIGCONT)
  }

  /// When the latest teardown begun so far sends (or sent) its SIGKILL: a shutdown that waits
  /// for its commands must wait at least that long. It never moves back.
  public static var lastKillDue: ContinuousClock.Instant? {
    registry.withLock { $0.lastKillDue }
  }

  /// Makes this process the reaper of its commands' orphans (`PR_SET_CHILD_SUBREAPER`), so that a
  /// process that leaves its command's group (`setsid`, `timeout`, a double fork) becomes its
  /// child instead of init's, and is killed when its command ends (see ``Subprocess``). Call once,
  /// early, in a program that reaps no children of its own besides its subprocesses.
  ///
  /// - Returns: `false` where the system cannot (not Linux, or `prctl` refused).
  @discardableResult
  public static func adoptOrphans() -> Bool {
    #if os(Linux)
      typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
      guard let handle = dlopen(nil, RTLD_LAZY), let address = dlsym(handle, "prctl") else {
        return false
      }
      let prctl = unsafeBitCast(address, to: Prctl.self)
      let setChildSubreaper: Int32 = 36  // PR_SET_CHILD_SUBREAPER, <linux/prctl.h>
      guard prctl(setChildSubreaper, 1, 0, 0, 0) == 0 else { return false }
      registry.withLock { $0.adopting = true }
      return true
    #else
      return false
    #endif
  }

  /// Tells `observer` of every ``SubprocessNotice`` from now on (`nil` stops it): the facts
  /// behind the process lints. It is called on the runners' reader threads, so it must not
  /// block.
  public static func observe(_ observer: (@Sendable (SubprocessNotice) -> Void)?) {
    registry.withLock { $0.observer = observer }
  }

  /// Hands `notice` to the observer, if there is one.
  static func notify(_ notice: SubprocessNotice) {
    registry.withLock { $0.observer }?(notice)
  }

  static var isExiting: Bool { registry.withLock { $0.exiting } }
  static var isAdopting: Bool { registry.withLock { $0.adopting } }

  private static func signalAll(_ signal: Int32) {
    registry.withLock { registry in
      for group in registry.groups { kill(-group, signal) }
    }
  }
}

/// Something the subprocess runner noticed about a command's end that is not an error, but a
/// sign that the command needs changing: the facts behind the `needs-sigkill` and `left-behind`
/// lints.
public enum SubprocessNotice: Sendable, Equatable {
  /// The command (``Subprocess/label``) ignored SIGTERM and was killed with SIGKILL after its
  /// `grace` (``Subprocess/killAfter``).
  case neededKill(command: String, grace: Duration)
  /// `count` processes the command (``Subprocess/label``) started were still alive after it
  /// ended, and were killed.
  case leftBehind(command: String, count: Int)
}
