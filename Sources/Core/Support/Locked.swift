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
@usableFromInline package final class Locked<Value>: @unchecked Sendable {
  // Why `@unchecked Sendable` is safe: the value is touched only while `mutex` is held; values
  // go in and out as `sending` (as with `Mutex`), so none stays shared with its previous owner;
  // the mutex and the value never move and are destroyed in `deinit`, when no other locker can
  // exist.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  /// The value, out of line: the mutex already makes access exclusive, and a stored `var` of a
  /// class would add the runtime's exclusivity check to every access, on paths that take a lock
  /// for every event.
  @usableFromInline let storage: UnsafeMutablePointer<Value>

  /// Creates the lock around `value`.
  @usableFromInline package init(_ value: consuming sending Value) {
    storage = .allocate(capacity: 1)
    storage.initialize(to: value)
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  /// Runs `body` with exclusive access to the value; `body` must not re-enter this lock (it is
  /// not recursive) and should not block. What `body` throws is rethrown, the lock released.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&storage.pointee)
  }

  /// Like ``withLock(_:)``, but `nil` at once if another thread holds the lock: for paths that
  /// must never wait, such as a forced exit while another thread is stuck inside `withLock`.
  @inlinable
  package func withLockIfAvailable<Result>(
    _ body: (inout sending Value) -> sending Result
  ) -> Result? {
    guard pthread_mutex_trylock(mutex) == 0 else { return nil }
    defer { pthread_mutex_unlock(mutex) }
    return body(&storage.pointee)
  }
}
