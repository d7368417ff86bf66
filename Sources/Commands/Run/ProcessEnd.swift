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
      Subprocesses.terminateAllForExit(orphanWait: UnixSignals.orphanWait)
      exitProcess(status)
    case .signal(let deadly):
      UnixSignals.die(by: deadly)
    case .brokenPipe:
      Subprocesses.terminateAllForExit(orphanWait: UnixSignals.orphanWait)
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

/// The exit statuses loadctl ends with, as README's "Exit statuses" and `--help` document them.
package enum ExitStatus {
  package static let completed: Int32 = 0
  package static let failed: Int32 = 1
  /// A lint named by `--deny` was raised in a run that would otherwise have ended with 0.
  package static let lintDenied: Int32 = 3
  /// `loadctl replay`: the replay did something its recording does not hold.
  package static let diverged: Int32 = 4
  /// `EX_USAGE`: a mistake in the command line.
  package static let usage: Int32 = 64
  /// `EX_DATAERR`: bad input data (a file, an input line).
  package static let badInput: Int32 = 65
  /// `EX_UNAVAILABLE`: a tool loadctl needs is missing (curl for `--url`).
  package static let unavailable: Int32 = 69
  /// `EX_OSERR`: the system cannot give what a run needs (too few file descriptors).
  package static let systemError: Int32 = 71
  /// `EX_IOERR`: writing stdout or the trace file failed.
  package static let ioError: Int32 = 74
}

/// A run that ended before its flow could start (a usage error, a file that cannot be used, a
/// missing tool): thrown where the problem is found, printed once by ``report()``.
package struct EarlyExit: Error, Sendable {
  /// What is wrong.
  package enum Problem: Sendable, Equatable {
    /// A mistake in the command line (status 64), printed with a usage hint.
    case usage(UsageError)
    /// Input that cannot be used (status 65).
    case badInput(String)
    /// A tool loadctl needs is missing (status 69).
    case unavailable(String)
  }

  package let problem: Problem
  /// The subcommand, for the `error` event; `nil` before one was recognised.
  package let command: String?
  /// Whether the run asked for `--json`: the `error` event goes to stdout too.
  package let json: Bool

  package init(_ problem: Problem, command: String?, json: Bool) {
    self.problem = problem
    self.command = command
    self.json = json
  }

  /// The exit status.
  package var status: Int32 {
    switch problem {
    case .usage: ExitStatus.usage
    case .badInput: ExitStatus.badInput
    case .unavailable: ExitStatus.unavailable
    }
  }

  /// The `error` event's `kind`.
  package var kind: String {
    switch problem {
    case .usage: "usage"
    case .badInput: "bad_input"
    case .unavailable: "unavailable"
    }
  }

  /// One line saying what is wrong, without the `Error: ` prefix.
  package var message: String {
    switch problem {
    case .usage(let error): error.message
    case .badInput(let message), .unavailable(let message): message
    }
  }

  /// What stderr shows: the `Error:` line (and for a usage error, the usage and where to read
  /// more), with a final newline.
  package var text: String {
    switch problem {
    case .usage(let error): error.render(program: CommandTable.program) + "\n"
    case .badInput, .unavailable: ErrorLine.text(message)
    }
  }

  /// Prints it: ``text`` on stderr and, with `--json`, one `error` event on stdout. The only
  /// place an early exit is printed.
  package func report() {
    Loadctl.printErr(text)
    if json { Loadctl.printOut(event) }
  }

  /// The one line a `--json` run prints on stdout when it ends before its flow could start:
  /// `{"seq":1,"elapsed_ms":0,"command":…,"event":"error","kind":…,"message":…,"exit_code":…}`.
  /// `command` is `"loadctl"` when the mistake came before a subcommand was recognised.
  package var event: String {
    let event: JSONValue = .object([
      ("seq", .int(1)), ("elapsed_ms", .int(0)), ("command", .string(command ?? "loadctl")),
      ("event", "error"), ("kind", .string(kind)), ("message", .string(message)),
      ("exit_code", .int(Int(status))),
    ])
    return event.serialized + "\n"
  }
}

/// `Error: <message>`: how every error reads on stderr, its message escaped so that no byte of it
/// drives the terminal.
package enum ErrorLine {
  /// The line, with its final newline.
  package static func text(_ message: String) -> String {
    "Error: \(message.escapingControlCharacters)\n"
  }

  /// The message for a stdout that failed with `errno` `code`: a run's and a replay's.
  package static func stdoutFailed(_ code: Int32) -> String {
    "cannot write to stdout: \(InputFile.describeErrno(code))"
  }
}
