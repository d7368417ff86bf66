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
  /// The terminal went away (or a daemon's "reload"): stop like SIGTERM.
  case hangup = 1
  /// Ctrl-C at a terminal.
  case interrupt = 2
  /// Ctrl-\\ at a terminal: end at once, without cleanup (the terminal is still restored).
  case quit = 3
  /// A polite request to stop (`kill`, service managers).
  case terminate = 15
  /// The process was continued after a stop (`fg`, `bg`).
  case resume = 18
  /// Ctrl-Z at a terminal: restore the terminal, then stop.
  case suspend = 20
  /// The terminal's window changed size.
  case windowChange = 28

  /// The signals that stop a run: each is a shutdown request.
  public static let stopping: [UnixSignal] = [.interrupt, .terminate, .hangup]

  /// Every signal the runtime handles, for ``UnixSignals/prepare(_:)``.
  public static let handled: [UnixSignal] = [
    .interrupt, .terminate, .hangup, .quit, .suspend, .resume, .windowChange,
  ]

  /// The C signal number.
  public var number: Int32 { rawValue }

  /// The conventional name, e.g. `SIGINT`.
  public var description: String {
    switch self {
    case .hangup: "SIGHUP"
    case .interrupt: "SIGINT"
    case .quit: "SIGQUIT"
    case .terminate: "SIGTERM"
    case .resume: "SIGCONT"
    case .suspend: "SIGTSTP"
    case .windowChange: "SIGWINCH"
    }
  }

  /// The shell status of a process that died by this signal (128 + number).
  public var shellStatus: Int32 { 128 + rawValue }
}

/// Delivers Unix signals as an `AsyncSequence`, so shutdown is ordinary structured code.
///
/// The signal handler does the one thing that is safe in a handler: it writes the signal's number
/// to a pipe (the self-pipe trick). A reader thread of its own reads the pipe and yields into the
/// stream. This works whichever thread the kernel picks and whatever signal masks the runtime's
/// threads have, and the reader thread keeps them unblocked so there is always a thread to deliver
/// them to. A signal inherited as ignored (`nohup`, `cmd &` in a script) stays ignored.
///
/// Some signals never wait for async code, because the cooperative pool may be stuck (a write to a
/// pipe nobody reads blocks its thread): a ``Hooks/force`` hook, once set, takes every stopping
/// signal on the reader thread; SIGQUIT restores the terminal, runs ``Hooks/quit`` and dies at
/// once; SIGTSTP restores the terminal and stops, and SIGCONT re-enters raw mode. A stopping
/// signal that comes before anyone watches (while the command still opens its files, which may
/// block on a FIFO) ends the process at once by that signal, as it would a program that has not
/// started; so does one after iteration ends — the force path.
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
  /// Call it first thing in `main`. Until ``watch()`` is called, a stopping signal ends the
  /// process by its default action (nothing has started that needs cleaning up).
  public static func prepare(_ signals: [UnixSignal]) {
    SignalPipe.shared.start(signals)
  }

  /// Synchronous work the reader thread does for signals that must not wait for async code.
  public struct Hooks: Sendable {
    /// Takes a stopping signal on the reader thread, before the async stream sees it (which it
    /// then does not); for a forced exit that a blocked cooperative pool cannot delay.
    public var force: (@Sendable (UnixSignal) -> Void)?
    /// Puts the terminal back for good, before dying by SIGQUIT or an unwatched signal.
    public var restoreTerminal: @Sendable () -> Void = {}
    /// Puts the terminal back for the shell, before stopping by SIGTSTP.
    public var suspendTerminal: @Sendable () -> Void = {}
    /// Re-enters raw mode after SIGCONT.
    public var resumeTerminal: @Sendable () -> Void = {}
    /// Redraws what is drawn on the terminal after SIGWINCH.
    public var resizeTerminal: @Sendable () -> Void = {}
    /// Last words before dying by SIGQUIT, after the terminal is restored: only what must be
    /// written and cannot wait (the recording's end). It may end the process itself.
    public var quit: @Sendable () -> Void = {}

    public init() {}
  }

  /// Sets the hooks of the running process (see ``Hooks``).
  public static func setHooks(_ hooks: Hooks) {
    SignalPipe.shared.setHooks(hooks)
  }

  /// Whether `signal` was found ignored by ``prepare(_:)`` (inherited), so it stays ignored.
  public static func isIgnored(_ signal: UnixSignal) -> Bool {
    SignalPipe.shared.ignored.contains(signal)
  }

  /// Whether `signal` is ignored right now; before any handler is installed, that is what the
  /// parent left (`nohup`, `cmd &` in a script).
  public static func isInheritedIgnored(_ signal: UnixSignal) -> Bool {
    SignalPipe.isIgnored(signal)
  }

  /// Ends the process by `signal` the way shells expect: default action, unblocked, raised.
  ///
  /// `exit(130)` looks the same in `$?` but not to a parent's `wait`, and a shell script only
  /// aborts when its child really died by SIGINT. Flush output before calling this. Child
  /// process groups still alive (a forced exit does not wait for their teardown) get SIGKILL
  /// first, so none outlives loadctl, and no runner reports that kill (see
  /// ``Subprocesses/terminateAllForExit(orphanWait:)``): the process dies by `deadly`, whatever its other
  /// threads are doing.
  public static func die(by deadly: UnixSignal) -> Never {
    Subprocesses.terminateAllForExit(orphanWait: orphanWait)
    // Test-only hook (LOADCTL_TEST_DEATH_DELAY_MS): widens the moment between the kill and the
    // death, which a loaded machine can make as long, to prove that nothing happens in it.
    if let delay = getenv("LOADCTL_TEST_DEATH_DELAY_MS").flatMap({ UInt32(String(cString: $0)) }) {
      usleep(Swift.min(delay, 10_000) * 1000)
    }
    _ = signal(deadly.number, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, deadly.number)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(deadly.number)
    _exit(deadly.shellStatus)
  }

  /// How long the process's end waits for what it killed below it to die (see
  /// ``Subprocesses/terminateAll(orphanWait:)``): 2 s.
  ///
  /// Test-only hook (`LOADCTL_TEST_ORPHAN_WAIT_MS`): a shorter wait, down to none, proves that
  /// what a command started outside its group is killed where it stands, not only once adopted.
  package static var orphanWait: Duration {
    guard let text = getenv("LOADCTL_TEST_ORPHAN_WAIT_MS"),
      let milliseconds = Int(String(cString: text)), (0...2000).contains(milliseconds)
    else { return .seconds(2) }
    return .milliseconds(milliseconds)
  }

  /// Stops the process by SIGTSTP's default action, its commands' process groups first (SIGSTOP:
  /// they are part of the job); returns once continued, with the commands continued and the
  /// handler back in place.
  public static func stopBySuspend() {
    Subprocesses.suspendAll()
    defer { Subprocesses.resumeAll() }
    var old = sigaction()
    _ = signal(SIGTSTP, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    raise(SIGTSTP)
    SignalPipe.install(.suspend, previous: &old)
  }
}

/// The self-pipe behind ``UnixSignals``: the handler writes, one reader thread reads.
final class SignalPipe: Sendable {
  static let shared = SignalPipe()

  private struct State {
    var started = false
    var listener: AsyncStream<UnixSignal>.Continuation?
    var ignored: Set<UnixSignal> = []
    var hooks = UnixSignals.Hooks()
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

  /// Signals that were ignored when the process started and so are left alone.
  var ignored: Set<UnixSignal> { state.withLock { $0.ignored } }

  func setHooks(_ hooks: UnixSignals.Hooks) { state.withLock { $0.hooks = hooks } }

  /// Installs ``handler`` for `signal`, returning the disposition it replaced in `previous`.
  static func install(_ signal: UnixSignal, previous: inout sigaction) {
    var action = sigaction()
    #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = Self.handler
    #else
      action.__sigaction_u.__sa_handler = Self.handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(signal.number, &action, &previous)
  }

  /// Whether `signal`'s current disposition is "ignore".
  static func isIgnored(_ signal: UnixSignal) -> Bool {
    var current = sigaction()
    sigaction(signal.number, nil, &current)
    #if canImport(Glibc)
      let handler = current.__sigaction_handler.sa_handler
    #else
      let handler = current.__sigaction_u.__sa_handler
    #endif
    return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Creates the pipe, installs the handlers and starts the reader (once).
  ///
  /// A signal that is ignored now (inherited from the parent) keeps being ignored.
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
    // SIGCONT continues the process whatever its disposition; the handler only re-enters raw mode.
    let ignored = Set(signals.filter { $0 != .resume && Self.isIgnored($0) })
    state.withLock { $0.ignored = ignored }
    let caught = signals.filter { !ignored.contains($0) }
    ReaderThread.start { [self] in
      // This thread keeps the signals unblocked, so the kernel always has a thread to deliver
      // them to: the runtime's own threads block them.
      var set = sigset_t()
      sigemptyset(&set)
      for signal in caught { sigaddset(&set, signal.number) }
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      var byte: UInt8 = 0
      while true {
        let count = read(readEnd, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return }
        if let signal = UnixSignal(rawValue: Int32(byte)) { deliver(signal) }
      }
    }
    for signal in caught {
      var previous = sigaction()
      Self.install(signal, previous: &previous)
    }
  }

  /// Starts (if needed) and hands future signals to `listener`.
  func attach(_ listener: AsyncStream<UnixSignal>.Continuation, for signals: [UnixSignal]) {
    start(signals)
    state.withLock { $0.listener = listener }
  }

  /// Stops listening: from now on a signal ends the process at once.
  func detach() {
    state.withLock { $0.listener = nil }
  }

  private func deliver(_ signal: UnixSignal) {
    enum Route {
      case force(@Sendable (UnixSignal) -> Void)
      case listener(AsyncStream<UnixSignal>.Continuation)
      case die
    }
    let hooks = state.withLock { $0.hooks }
    switch signal {
    case .quit:
      hooks.restoreTerminal()
      hooks.quit()
      UnixSignals.die(by: .quit)
    case .suspend:
      hooks.suspendTerminal()
      UnixSignals.stopBySuspend()
      hooks.resumeTerminal()
      return
    case .resume:
      hooks.resumeTerminal()
      return
    case .windowChange:
      hooks.resizeTerminal()
      return
    case .hangup, .interrupt, .terminate:
      break
    }
    let route: Route = state.withLock { state in
      guard let listener = state.listener else { return .die }
      if let force = state.hooks.force { return .force(force) }
      return .listener(listener)
    }
    switch route {
    case .force(let force): force(signal)
    case .listener(let listener): listener.yield(signal)
    case .die:
      hooks.restoreTerminal()
      UnixSignals.die(by: signal)
    }
  }
}
