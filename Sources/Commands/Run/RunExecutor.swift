import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The serial executor a continuous-time run lives on: one thread of its own runs every job of
/// the run's tasks (the store, its input pump, effects), and calls `onIdle` each time it has run
/// out of work, just before it sleeps.
///
/// On the cooperative pool every hand-over between the store and its input pump, or an effect,
/// wakes another thread; here it is a queue append on the thread that is already running. And
/// "the run is about to wait" (for input, the clock, an effect or a process) becomes a fact — the
/// queue is empty — so output is flushed exactly then: lines reach a pipe as they happen, a burst
/// of them is one write. Blocking calls stay off this thread (readers and child processes have
/// threads of their own).
///
/// ```swift
/// let executor = RunExecutor(onIdle: { output.flush() })
/// let end = await withTaskExecutorPreference(executor) { await flow.run() }
/// ```
final class RunExecutor: TaskExecutor, @unchecked Sendable {
  // Why `@unchecked Sendable` is safe: `jobs` and `sleeping` are read and written only while
  // `mutex` is held; `onIdle` is immutable and Sendable; the mutex and condition live in their
  // own allocations, never move, and are never destroyed (the executor lives as long as the
  // process: its thread may still be parked in `pthread_cond_wait` when the run returns).
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var jobs: [UnownedJob] = []
  private var sleeping = false
  private let onIdle: @Sendable () -> Void

  /// Starts the executor's thread; `nil` when no thread could be made.
  init?(onIdle: @escaping @Sendable () -> Void) {
    self.onIdle = onIdle
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
    // A stack as large as the main thread's: jobs of any task run on it.
    guard ReaderThread.start(stackSize: 8 << 20, { [self] in loop() }) else { return nil }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    pthread_mutex_lock(mutex)
    jobs.append(job)
    let wake = sleeping
    pthread_mutex_unlock(mutex)
    if wake { pthread_cond_signal(condition) }
  }

  private func loop() {
    var batch: [UnownedJob] = []
    while true {
      pthread_mutex_lock(mutex)
      if jobs.isEmpty {
        pthread_mutex_unlock(mutex)
        onIdle()
        pthread_mutex_lock(mutex)
        while jobs.isEmpty {
          sleeping = true
          pthread_cond_wait(condition, mutex)
          sleeping = false
        }
      }
      swap(&jobs, &batch)
      pthread_mutex_unlock(mutex)
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
      batch.removeAll(keepingCapacity: true)
    }
  }
}
