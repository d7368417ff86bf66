import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the process ends: decided by a run, carried out by `main` alone.
///
/// Everything a run prints is written before it returns one of these; ``terminate()`` only ends
/// the process. (A forced exit — a second signal, the cleanup deadline, SIGQUIT — does not come
/// back here: it dies by its signal on the thread that took it.)
package enum ProcessEnd: Sendable, Equatable {
  /// `exit(status)`.
  case exit(Int32)
  /// Death by the signal, as shells expect (`$?` is 128 + its number).
  case signal(UnixSignal)
  /// Death by SIGPIPE, quietly: the reader of stdout went away (`$?` is 141).
  case brokenPipe

  /// Ends the process; child process groups still alive get SIGKILL first.
  package func terminate() -> Never {
    switch self {
    case .exit(let status):
      Subprocesses.terminateAllForExit()
      exitProcess(status)
    case .signal(let deadly):
      UnixSignals.die(by: deadly)
    case .brokenPipe:
      Subprocesses.terminateAllForExit()
      dieByBrokenPipe()
    }
  }
}

// At file scope: inside `ProcessEnd` the names `exit` and `signal` are its own cases.
private func exitProcess(_ status: Int32) -> Never {
  exit(status)
}

private func dieByBrokenPipe() -> Never {
  _ = signal(SIGPIPE, SIG_DFL)
  raise(SIGPIPE)
  _exit(141)
}

/// A run that ended before its flow could start (a usage error, a file that cannot be used, a
/// missing tool): its message is already printed, and `status` is the exit status.
package struct EarlyExit: Error, Sendable, Equatable {
  package let status: Int32
}
