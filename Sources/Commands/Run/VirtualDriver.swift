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
  /// Drives `clock` until `isDone` is true; `onIdle` runs whenever every task is parked (before
  /// time jumps or the loop blocks): the moment to flush output.
  static func run(clock: VirtualClock, onIdle: () -> Void = {}, isDone: () -> Bool) {
    while true {
      clock.drain()
      if isDone() { return }
      onIdle()
      if let next = clock.nextDeadline {
        clock.advance(to: next)
      } else {
        clock.executor.waitForWork()
      }
    }
  }
}
