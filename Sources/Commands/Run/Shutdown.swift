import Dispatch
import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Collects stop requests (signals, a failed stdout) and turns the first into a cancellation.
///
/// The first request wakes ``wait()``, whose caller cancels the root task; flows then make their
/// final transitions. A second signal, or cleanup running past the deadline, ends the process at
/// once by the first signal, after flushing what can be written without waiting: a stuck cleanup
/// or a write blocked on a full pipe can never keep a Ctrl-C from working. The deadline runs on a
/// thread of its own, so it fires however busy or stuck the cooperative pool is.
package final class Shutdown: Sendable {
  private struct State {
    var first: ShutdownReason?
    var waiter: CheckedContinuation<ShutdownReason?, Never>?
    var closed = false
    /// The run's end was decided (``settle()``): a first request after it changes nothing.
    var settled = false
  }

  private let state = Locked(State())
  private let lastWords = Locked<[@Sendable (UnixSignal) -> Void]>([])
  private let deadline: Duration
  private let flush: @Sendable () -> Void
  private let notice: @Sendable (ShutdownReason) -> Void

  /// - Parameters:
  ///   - deadline: How long cleanup may take after the first request.
  ///   - flush: Writes what is buffered before a forced exit.
  ///   - notice: Tells the person what is happening (called once, on the first signal).
  package init(
    deadline: Duration, flush: @escaping @Sendable () -> Void,
    notice: @escaping @Sendable (ShutdownReason) -> Void
  ) {
    self.deadline = deadline
    self.flush = flush
    self.notice = notice
  }

  /// Registers work that must still happen before a forced exit (e.g. writing the trace file).
  /// The work is told the signal the process dies by.
  package func beforeForcedExit(_ work: @escaping @Sendable (UnixSignal) -> Void) {
    lastWords.withLock { $0.append(work) }
  }

  /// Does the work registered with ``beforeForcedExit(_:)`` now, for a death that cancels
  /// nothing (SIGQUIT); each piece of it does its work once.
  package func sayLastWords(dyingBy signal: UnixSignal) {
    for work in lastWords.withLock({ $0 }) { work(signal) }
  }

  /// The first request, if any.
  package var reason: ShutdownReason? { state.withLock { $0.first } }

  /// The first request, now settled as the one the run ends by: a first request after this
  /// changes nothing about how the run ends, so `notice` is not told of it (nor a recording);
  /// a signal still bounds the cleanup, and a second one still forces the exit.
  package func settle() -> ShutdownReason? {
    state.withLock { state in
      state.settled = true
      return state.first
    }
  }

  /// Records a stop request; safe from any thread.
  package func request(_ reason: ShutdownReason) {
    let (isFirst, waiter, settled) = state.withLock {
      state -> (Bool, CheckedContinuation<ShutdownReason?, Never>?, Bool) in
      guard state.first == nil else { return (false, nil, state.settled) }
      state.first = reason
      defer { state.waiter = nil }
      return (true, state.waiter, state.settled)
    }
    guard isFirst else {
      if case .signal(let signal) = reason { force(signal) }
      return
    }
    // The deadline first: if stderr is blocked, the notice waits, and the deadline still fires.
    if case .signal(let signal) = reason { armDeadline(signal) }
    if !settled { notice(reason) }
    waiter?.resume(returning: reason)
  }

  /// Waits for the first request; returns `nil` if the waiting task is cancelled first.
  package func wait() async -> ShutdownReason? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ShutdownReason?, Never>) in
        let ready: ShutdownReason?? = state.withLock { state in
          if let first = state.first { return .some(first) }
          if state.closed { return .some(nil) }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.closed = true
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume(returning: nil)
    }
  }

  /// How long after the last SIGKILL of a teardown the deadline waits at least.
  static let afterKill = Duration.seconds(1)

  private func armDeadline(_ signal: UnixSignal) {
    let deadline = self.deadline
    let started = ReaderThread.start { [self] in
      var until = ContinuousClock.now + deadline
      while true {
        // A command still in its teardown grace gets it whole, and the flow a moment after it
        // to print its final transitions and `end`.
        if let due = Subprocesses.lastKillDue, due + Self.afterKill > until {
          until = due + Self.afterKill
        }
        guard ContinuousClock.now < until else { break }
        let left = ContinuousClock.now.duration(to: until).components
        var time = timespec(
          tv_sec: Int(left.seconds), tv_nsec: Int(left.attoseconds / 1_000_000_000))
        _ = nanosleep(&time, nil)
      }
      force(signal)
    }
    if !started {
      let nanos =
        Int(deadline.components.seconds) * 1_000_000_000
        + Int(deadline.components.attoseconds / 1_000_000_000)
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos)) { [self] in
        force(signal)
      }
    }
  }

  private func force(_ signal: UnixSignal) -> Never {
    OutputWriter.enterForcedExit()
    flush()
    sayLastWords(dyingBy: signal)
    UnixSignals.die(by: signal)
  }
}
