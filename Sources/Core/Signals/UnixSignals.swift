import Dispatch
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A Unix signal a command-line program reacts to.
public enum UnixSignal: Int32, Sendable, CaseIterable, CustomStringConvertible {
  /// Ctrl-C at a terminal.
  case interrupt = 2
  /// A polite request to stop (`kill`, service managers).
  case terminate = 15

  /// The C signal number.
  public var number: Int32 { rawValue }

  /// The conventional name, e.g. `SIGINT`.
  public var description: String { self == .interrupt ? "SIGINT" : "SIGTERM" }

  /// The shell status of a process that died by this signal (128 + number).
  public var shellStatus: Int32 { 128 + rawValue }
}

/// Delivers Unix signals as an `AsyncSequence`, so shutdown is ordinary structured code.
///
/// The signal handler does the one thing that is safe in a handler: it writes the signal's number
/// to a pipe (the self-pipe trick). A dispatch worker reads the pipe and yields into the stream.
/// This works whichever thread the kernel picks and whatever signal masks the runtime's threads
/// have. (libdispatch's signal sources were tried first: on Linux a signal that lands on a thread
/// outside dispatch became a thread-directed pending signal its `signalfd` never read, and a busy
/// process lost Ctrl-C in 2 of 40 runs. Blocking the signals for `sigwait` fails too, because the
/// Swift runtime's main thread is not the one that runs `main`'s code.) After iteration ends, a
/// further signal ends the process at once by that signal — the force path.
///
/// ```swift
/// for await signal in UnixSignals([.interrupt, .terminate]) {
///   shutdown.request(signal)
/// }
/// ```
public struct UnixSignals: AsyncSequence, Sendable {
  public typealias Element = UnixSignal

  let signals: [UnixSignal]

  /// Watches `signals` from the moment iteration starts.
  public init(_ signals: [UnixSignal]) { self.signals = signals }

  public func makeAsyncIterator() -> AsyncStream<UnixSignal>.Iterator {
    watch().makeAsyncIterator()
  }

  /// Installs the handlers now and returns the stream; iterate it later without missing a signal.
  public func watch() -> AsyncStream<UnixSignal> {
    let (stream, continuation) = AsyncStream<UnixSignal>.makeStream()
    let listening = Mutex(true)
    continuation.onTermination = { _ in listening.withLock { $0 = false } }
    guard let readEnd = SignalPipe.install(signals) else {
      continuation.finish()
      return stream
    }
    DispatchQueue(label: "loadctl.signals").async {
      var byte: UInt8 = 0
      while true {
        let count = read(readEnd, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        guard let signal = UnixSignal(rawValue: Int32(byte)) else { continue }
        guard listening.withLock({ $0 }) else { UnixSignals.die(by: signal) }
        continuation.yield(signal)
      }
    }
    return stream
  }

  /// Ends the process by `signal` the way shells expect: default action, unblocked, raised.
  ///
  /// `exit(130)` looks the same in `$?` but not to a parent's `wait`, and a shell script only
  /// aborts when its child really died by SIGINT. Flush output before calling this.
  public static func die(by deadly: UnixSignal) -> Never {
    _ = signal(deadly.number, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, deadly.number)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(deadly.number)
    _exit(deadly.shellStatus)
  }
}

/// The self-pipe behind ``UnixSignals``: the handler writes, a worker reads.
enum SignalPipe {
  /// The pipe's write end, for the handler; an atomic load is safe inside a signal handler.
  static let writeEnd = Atomic<Int32>(-1)

  /// Writes the signal's number to the pipe, keeping `errno` as the interrupted code left it.
  static let handler: @convention(c) (Int32) -> Void = { number in
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(SignalPipe.writeEnd.load(ordering: .sequentiallyConsistent), &byte, 1)
    errno = saved
  }

  /// Creates the pipe (once) and installs the handler for `signals`.
  /// - Returns: The read end, or `nil` if no pipe could be made.
  static func install(_ signals: [UnixSignal]) -> Int32? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    writeEnd.store(ends[1], ordering: .sequentiallyConsistent)
    for signal in signals {
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
      #else
        action.__sigaction_u.__sa_handler = handler
      #endif
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      sigaction(signal.number, &action, nil)
    }
    return ends[0]
  }
}
