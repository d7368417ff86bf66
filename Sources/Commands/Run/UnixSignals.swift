import Dispatch
import LoadctlCore
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
/// have, and the reader thread keeps them unblocked so there is always a thread to deliver them
/// to. (libdispatch's signal sources were tried first and a busy process lost Ctrl-C in 2 of 40
/// runs; then a plain handler still lost 1 in 40, because the runtime's threads block the signals
/// and `dispatch_main` ends the main thread, leaving the signal pending with nowhere to go.)
/// After iteration ends, a further signal ends the process at once by that signal — the force
/// path.
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

  /// Starts watching now and returns the stream; iterate it later without missing a signal.
  public func watch() -> AsyncStream<UnixSignal> {
    let (stream, continuation) = AsyncStream<UnixSignal>.makeStream()
    SignalPipe.shared.attach(continuation, for: signals)
    continuation.onTermination = { _ in SignalPipe.shared.detach() }
    return stream
  }

  /// Installs the handlers and starts the reader thread, before anything else runs.
  ///
  /// Call it first thing in `main`. Until ``watch()`` is called, signals are held, not lost.
  public static func prepare(_ signals: [UnixSignal]) {
    SignalPipe.shared.start(signals)
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

/// The self-pipe behind ``UnixSignals``: the handler writes, one reader thread reads.
final class SignalPipe: Sendable {
  static let shared = SignalPipe()

  private struct State {
    var started = false
    var held: [UnixSignal] = []
    var listener: AsyncStream<UnixSignal>.Continuation?
    var detached = false
  }

  private let state = Locked(State())

  /// The pipe's write end, for the handler; an atomic load is safe inside a signal handler.
  static let writeEnd = Atomic<Int32>(-1)

  /// Writes the signal's number to the pipe, keeping `errno` as the interrupted code left it.
  static let handler: @convention(c) (Int32) -> Void = { number in
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(SignalPipe.writeEnd.load(ordering: .sequentiallyConsistent), &byte, 1)
    errno = saved
  }

  /// Creates the pipe, installs the handler and starts the reader (once).
  func start(_ signals: [UnixSignal]) {
    let first = state.withLock { state in
      defer { state.started = true }
      return !state.started
    }
    guard first else { return }
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    Self.writeEnd.store(ends[1], ordering: .sequentiallyConsistent)
    let readEnd = ends[0]
    ReaderThread.start { [self] in
      // This thread keeps the signals unblocked, so the kernel always has a thread to deliver
      // them to: the runtime's own threads block them.
      var set = sigset_t()
      sigemptyset(&set)
      for signal in signals { sigaddset(&set, signal.number) }
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      var byte: UInt8 = 0
      while true {
        let count = read(readEnd, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        if let signal = UnixSignal(rawValue: Int32(byte)) { deliver(signal) }
      }
    }
    for signal in signals {
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = Self.handler
      #else
        action.__sigaction_u.__sa_handler = Self.handler
      #endif
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      sigaction(signal.number, &action, nil)
    }
  }

  /// Starts (if needed) and hands held and future signals to `listener`.
  func attach(_ listener: AsyncStream<UnixSignal>.Continuation, for signals: [UnixSignal]) {
    start(signals)
    let held = state.withLock { state in
      state.listener = listener
      defer { state.held = [] }
      return state.held
    }
    for signal in held { listener.yield(signal) }
  }

  /// Stops listening: from now on a signal ends the process at once.
  func detach() {
    state.withLock { state in
      state.listener = nil
      state.detached = true
    }
  }

  private func deliver(_ signal: UnixSignal) {
    enum Route {
      case listener(AsyncStream<UnixSignal>.Continuation)
      case held
      case die
    }
    let route: Route = state.withLock { state in
      if let listener = state.listener { return .listener(listener) }
      if state.detached { return .die }
      state.held.append(signal)
      return .held
    }
    switch route {
    case .listener(let listener): listener.yield(signal)
    case .held: break
    case .die: UnixSignals.die(by: signal)
    }
  }
}
