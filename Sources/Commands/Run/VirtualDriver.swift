import LoadctlCore

/// Runs a command's root on virtual time: instantly, and byte for byte the same every run.
///
/// The root runs on the ``VirtualClock``'s ``ManualExecutor``, so every task of the run — the store,
/// its effects, input readers, the signal watcher — enqueues its jobs there. The loop below drains
/// that queue on this thread; when it is empty, every task is parked. In virtual mode the only
/// things a task can be parked on are the clock, another task of the run, or a signal: input files
/// are read completely before they are scheduled (see ``RunContext/lines(fd:closeWhenDone:)``) and
/// sources whose timing is real (`--url`) are refused. So an empty queue with a pending deadline
/// means nothing can happen before that deadline, and jumping to it cannot race. No
/// `Task.yield()` and no sleeps: the decision is made on a fact (the queue is empty), not a guess.
/// With no deadline pending and the root still running, only a signal can move things on, so the
/// loop blocks until something is enqueued.
enum VirtualDriver {
  /// The latest virtual time a run can reach: what its events' `elapsed_ms` can show, 2^63 ns
  /// (about 292 years) after the start.
  static let range = Duration.nanoseconds(Int64.max)

  /// Drives `clock` until `isDone` is true; `onIdle` runs whenever every task is parked (before
  /// time jumps or the loop blocks): the moment to flush output.
  /// - Returns: `nil` once done; the deadline, when the next one is past ``range`` and the run
  ///   was left parked before it.
  static func run(clock: VirtualClock, onIdle: () -> Void = {}, isDone: () -> Bool) -> Duration? {
    while true {
      clock.drain()
      if isDone() { return nil }
      onIdle()
      if let next = clock.nextDeadline {
        guard next.offset <= range else { return next.offset }
        clock.advance(to: next)
      } else {
        clock.executor.waitForWork()
      }
    }
  }
}
