import Foundation

/// A value that is only ever read or written while holding a lock.
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer
/// cannot see, so every access under it is reported as a data race and a sanitizer run fails.
/// `NSLock` is a pthread mutex, which ThreadSanitizer understands.
final class Locked<Value: Sendable>: @unchecked Sendable {
  // @unchecked is safe: `value` is private and touched only inside `withLock`, while `lock` is
  // held, so no two threads ever access it at once; `Value` is itself Sendable, so whatever a
  // closure copies out may cross threads.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
