#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Subprocess {
  /// How a command ended: its exit status or the signal that killed it.
  public enum Termination: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// From a `waitpid` status (the `WIFEXITED` macros are not imported into Swift).
    init(status: Int32) {
      self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
    }

    /// `exit status 3`, `killed by SIGTERM`, `killed by signal 40`.
    public var description: String {
      switch self {
      case .exited(let status): "exit status \(status)"
      case .signalled(let number):
        "killed by \(Self.names[number].map { "SIG\($0)" } ?? "signal \(number)")"
      }
    }

    private static let names: [Int32: String] = [
      SIGHUP: "HUP", SIGINT: "INT", SIGQUIT: "QUIT", SIGILL: "ILL", SIGTRAP: "TRAP",
      SIGABRT: "ABRT", SIGBUS: "BUS", SIGFPE: "FPE", SIGKILL: "KILL", SIGUSR1: "USR1",
      SIGSEGV: "SEGV", SIGUSR2: "USR2", SIGPIPE: "PIPE", SIGALRM: "ALRM", SIGTERM: "TERM",
    ]
  }
}
