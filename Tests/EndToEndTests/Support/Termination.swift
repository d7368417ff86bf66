#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a child process ended: by calling `exit`, or by dying from a signal.
///
/// A shell reports both as one number (`130` for SIGINT), but a parent's `wait` can tell them
/// apart, and so must the tests: loadctl has to *die from* SIGINT, not `exit(130)`, for a script
/// that runs it to stop too.
enum Termination: Equatable, Sendable, CustomStringConvertible {
  /// The process called `exit` (or returned from `main`) with this status.
  case exited(Int32)
  /// The process was killed by this signal.
  case signaled(Int32)

  /// Decodes a raw `waitpid` status word.
  ///
  /// The `WIFEXITED` family are C macros that Swift does not import; Linux and the BSDs share
  /// this encoding: the low 7 bits are the signal (0 = exited, 0x7f = stopped), bits 8–15 the
  /// exit status.
  /// - Returns: `nil` for a stopped or continued process, which is not a termination.
  init?(waitStatus status: Int32) {
    let low = status & 0x7f
    if low == 0 {
      self = .exited((status >> 8) & 0xff)
    } else if low != 0x7f {
      self = .signaled(low)
    } else {
      return nil
    }
  }

  /// The number a shell would put in `$?`: the status, or 128 + the signal.
  var shellStatus: Int32 {
    switch self {
    case .exited(let code): code
    case .signaled(let signal): 128 + signal
    }
  }

  var description: String {
    switch self {
    case .exited(let code): "exited(\(code))"
    case .signaled(let signal): "signaled(\(Termination.name(ofSignal: signal)))"
    }
  }

  /// A readable name for the common signals, else the number.
  static func name(ofSignal signal: Int32) -> String {
    switch signal {
    case SIGHUP: "SIGHUP"
    case SIGINT: "SIGINT"
    case SIGQUIT: "SIGQUIT"
    case SIGILL: "SIGILL"
    case SIGTRAP: "SIGTRAP"
    case SIGABRT: "SIGABRT"
    case SIGBUS: "SIGBUS"
    case SIGFPE: "SIGFPE"
    case SIGKILL: "SIGKILL"
    case SIGSEGV: "SIGSEGV"
    case SIGPIPE: "SIGPIPE"
    case SIGALRM: "SIGALRM"
    case SIGTERM: "SIGTERM"
    default: "signal \(signal)"
    }
  }
}
