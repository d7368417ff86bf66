#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A lock-protected value built on `pthread_mutex_t`, for state shared with plain threads.
///
/// `Synchronization.Mutex` on Linux locks with raw futex calls that ThreadSanitizer cannot see, so
/// every access it protects between a reader thread and a task is reported as a race. This lock is
/// a pthread mutex, which the sanitizer understands; use it where a `ReaderThread` and async code
/// share state.
///
/// ```swift
/// let queue = PthreadLock<[Int]>([])
/// queue.withLock { $0.append(1) }
/// ```
public final class PthreadLock<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, between `pthread_mutex_lock` and
  // `pthread_mutex_unlock` on `mutex`, so no two threads ever touch it at once.
  private var value: Value
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  /// Creates the lock around `value`.
  public init(_ value: Value) {
    self.value = value
    mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
