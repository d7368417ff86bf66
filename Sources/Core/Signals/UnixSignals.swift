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
    let (stream, continuation) = AsyncStream<UnixSignal>.makeStream()
    let sources = SignalSources(signals: signals) { continuation.yield($0) }
    continuation.onTermination = { _ in sources.cancel() }
    return stream.makeAsyncIterator()
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
    for signal in signals {
      setDisposition(signal.number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal.number, queue: .global())
      source.setEventHandler(handler: { @Sendable in handler(signal) })
      source.resume()
      made.append(source)
    }
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
