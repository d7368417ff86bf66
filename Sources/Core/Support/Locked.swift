#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value that several threads and tasks share, behind a `pthread` mutex.
///
/// The API is `Synchronization.Mutex`'s, but on Linux `Mutex` locks with futex calls that
/// ThreadSanitizer cannot see, so it reports every access a `Mutex` protects as a race. TSan
/// intercepts `pthread_mutex_lock`: it sees this lock and still finds real races.
package final class Locked<Value>: @unchecked Sendable {
  // Why `@unchecked Sendable` is safe: `value` is read and written only inside `withLock`,
  // while `mutex` is held, so no two threads ever touch it at once; `init` and `withLock` take
  // and return values as `sending`, as `Mutex` does, so a non-Sendable value cannot stay shared
  // with its previous owner. The mutex lives in its own allocation, which never moves, and is
  // destroyed in `deinit`, when no other reference (and so no other locker) exists.
  let mutex: UnsafeMutablePointer<pthread_mutex_t>
  var value: Value

  /// Creates the lock around `value`.
  package init(_ value: consuming sending Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value and returns its result.
  ///
  /// - Parameter body: Reads or changes the value; it must not call `withLock` on the same
  ///   lock (the mutex is not recursive) and should not block.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw; the lock is released either way.
  package func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }

  /// Runs `body` with exclusive access if no other thread holds the lock; `nil` if one does.
  ///
  /// For paths that must never wait, such as a forced exit while another thread is stuck
  /// inside `withLock`.
  /// - Parameter body: Reads or changes the value; the same rules as for ``withLock(_:)``.
  /// - Returns: What `body` returned, or `nil` if the lock was taken.
  @inlinable
  public func withLockIfAvailable<Result>(
    _ body: (inout sending Value) -> sending Result
  ) -> Result? {
    guard pthread_mutex_trylock(mutex) == 0 else { return nil }
    defer { pthread_mutex_unlock(mutex) }
    return body(&value)
  }
}
