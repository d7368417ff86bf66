import Dispatch
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
  typealias sighandler_t = sig_t
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
/// A C signal handler may do almost nothing safely; a dispatch signal source runs its handler on
/// a queue instead, where yielding into a stream is fine. The handler is `@Sendable` and runs on a
/// global queue: a closure inferred as main-actor isolated would trap in `dispatch_assert_queue`
/// when the signal arrives. While the sequence is iterated the signals' default actions are off;
/// when iteration ends they are restored.
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

  /// Starts watching now, and returns the signals as a stream for a task to react to.
  ///
  /// Iterating arms the watch only when iteration starts, which can be after the work it guards
  /// has begun (a child task may start late); a signal in between takes its default action.
  /// Arm first with this, then iterate the stream where convenient. The watch ends, and the
  /// default actions come back, when the stream's consumer stops.
  public func watch() -> AsyncStream<UnixSignal> {
    let (stream, continuation) = AsyncStream<UnixSignal>.makeStream()
    let sources = SignalSources(signals: signals) { continuation.yield($0) }
    continuation.onTermination = { _ in sources.cancel() }
    return stream
  }

  /// Ends the process by `signal` the way shells expect: default action, unblocked, raised.
  ///
  /// `exit(130)` looks the same in `$?` but not to a parent's `wait`, and a shell script only
  /// aborts when its child really died by SIGINT. Flush output before calling this.
  public static func die(by deadly: UnixSignal) -> Never {
    setDisposition(deadly.number, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, deadly.number)
    sigprocmask(SIG_UNBLOCK, &set, nil)
    raise(deadly.number)
    _exit(deadly.shellStatus)
  }
}

/// Owns the dispatch sources of one iteration and restores default actions when cancelled.
final class SignalSources: Sendable {
  private let sources: Mutex<[any DispatchSourceSignal]>
  private let signals: [UnixSignal]

  init(signals: [UnixSignal], handler: @escaping @Sendable (UnixSignal) -> Void) {
    self.signals = signals
    var made: [any DispatchSourceSignal] = []
    var bridged: [UnixSignal] = []
    for signal in signals {
      #if os(Linux)
        if PendingSignals.bridge(signal.number) { bridged.append(signal) }
      #else
        setDisposition(signal.number, SIG_IGN)
      #endif
      let source = DispatchSource.makeSignalSource(signal: signal.number, queue: .global())
      source.setEventHandler(handler: { @Sendable in handler(signal) })
      source.resume()
      made.append(source)
    }
    for signal in bridged { PendingSignals.handOver(signal.number) }
    sources = Mutex(made)
  }

  func cancel() {
    let all = sources.withLock { sources in
      defer { sources.removeAll() }
      for source in sources { source.cancel() }
      return sources.count
    }
    if all > 0 {
      for signal in signals { setDisposition(signal.number, SIG_DFL) }
    }
  }
}

/// Sets a signal's disposition; the libc name clashes with `UnixSignal` parameters.
func setDisposition(_ number: Int32, _ handler: sighandler_t?) {
  _ = signal(number, handler)
}

#if os(Linux)
  /// Keeps signals that arrive while libdispatch is still arming its signal sources.
  ///
  /// On Linux, `DispatchSource.resume()` returns before libdispatch has installed its own
  /// handler: that happens a little later on its manager thread (measured: tens of microseconds,
  /// more under load). With the disposition at `SIG_IGN` meanwhile, a Ctrl-C right after start
  /// was dropped, and the run never stopped (2 of 40 runs that got SIGINT right after their first
  /// line of output). So a recording handler holds the fort until libdispatch's replaces it,
  /// and a signal it caught is raised again for libdispatch to deliver.
  enum PendingSignals {
    /// One bit per signal number caught by ``record``.
    private static let caught = Atomic<UInt64>(0)

    /// The stand-in handler: async-signal-safe (one lock-free atomic operation).
    private static let record: @convention(c) (Int32) -> Void = { number in
      PendingSignals.caught.bitwiseOr(1 << UInt64(number), ordering: .sequentiallyConsistent)
    }

    /// Installs the stand-in handler unless another handler (libdispatch's, from a watch still
    /// armed) is there already.
    /// - Returns: Whether ``handOver(_:)`` must wait for libdispatch.
    static func bridge(_ number: Int32) -> Bool {
      let current = disposition(number)
      guard current == address(SIG_DFL) || current == address(SIG_IGN) else { return false }
      // Touch the atomic first: a global's lazy initialization must not run in the handler.
      _ = caught.load(ordering: .sequentiallyConsistent)
      setDisposition(number, record)
      return true
    }

    /// Waits (at most a second) for libdispatch to install its handler, then raises a signal
    /// the stand-in caught, so that it reaches the source. Falls back to `SIG_IGN`, the former
    /// behaviour, if libdispatch never takes over.
    static func handOver(_ number: Int32) {
      let ours = address(record)
      var waited = 0
      while disposition(number) == ours, waited < 20_000 {
        usleep(50)
        waited += 1
      }
      if disposition(number) == ours { setDisposition(number, SIG_IGN) }
      let bit: UInt64 = 1 << UInt64(number)
      let before = caught.bitwiseAnd(~bit, ordering: .sequentiallyConsistent).oldValue
      if before & bit != 0 { raise(number) }
    }

    private static func disposition(_ number: Int32) -> Int {
      var action = sigaction()
      sigaction(number, nil, &action)
      return address(action.__sigaction_handler.sa_handler)
    }

    private static func address(_ handler: sighandler_t?) -> Int {
      unsafeBitCast(handler, to: Int.self)
    }
  }
#endif
