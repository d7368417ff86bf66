import Dispatch

/// A serial task executor whose jobs run only when someone calls ``drain()``.
///
/// A task started with this executor as its preference (and its structured children, default
/// actors it calls, and every continuation resumed for it) enqueues its jobs here; ``drain()``
/// runs them on the calling thread until the queue is empty. An empty queue after `drain()` is a
/// proof, not a guess, that all the work is parked on something outside it (a clock, a stream):
/// the moment tests and virtual time need, which the global pool cannot show.
///
/// ```swift
/// let executor = ManualExecutor()
/// let task = Task(executorPreference: executor) { await work() }
/// executor.drain()  // work() has now run up to its first real suspension
/// ```
///
/// Work started with an unstructured `Task {}` or on the main actor escapes it and breaks that proof.
public final class ManualExecutor: TaskExecutor, Sendable {
  private let queue = Locked<[UnownedJob]>([])
  private let wakeups = DispatchSemaphore(value: 0)

  /// Creates an executor with an empty queue.
  public init() {}

  /// Queues a job; it runs at the next ``drain()``.
  public func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    queue.withLock { $0.append(unowned) }
    wakeups.signal()
  }

  /// Blocks the calling thread until a job may have been enqueued since the last call.
  ///
  /// For a driver loop that has drained the queue and has nothing else to do (no clock deadline):
  /// only something outside the executor — a signal, another thread — can enqueue work now. It
  /// may return early (each enqueue counts once), so callers re-check their condition.
  package func waitForWork() {
    wakeups.wait()
  }

  /// ``waitForWork()`` for at most `timeout`.
  /// - Returns: Whether it woke for work rather than for the timeout.
  package func waitForWork(timeout: Duration) -> Bool {
    let (seconds, attoseconds) = timeout.components
    let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    return wakeups.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
  }

  /// Runs queued jobs in FIFO order, including jobs they enqueue, until none is left.
  ///
  /// - Returns: The number of jobs that ran.
  @discardableResult
  public func drain() -> Int {
    var count = 0
    var batch: [UnownedJob] = []
    while true {
      queue.withLock { swap(&$0, &batch) }
      if batch.isEmpty { return count }
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
      count += batch.count
      batch.removeAll(keepingCapacity: true)
    }
  }
}
