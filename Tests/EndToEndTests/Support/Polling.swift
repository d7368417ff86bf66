/// Waits for a condition that only polling can see (a file's contents, `/proc`), for the rare
/// facts that no pipe or exit status reports.
///
/// The condition is tested once more after the deadline has passed: the test process itself may
/// have been kept off the CPU for the whole wait (its cooperative pool is shared with every other
/// test), and what happened meanwhile must still count. The deadline is a failsafe, never a
/// measurement.
enum Polling {
  /// Returns the first non-`nil` value of `condition`.
  /// - Throws: `HarnessError.timedOut` naming `what` when the failsafe ends the wait.
  static func until<Value>(
    _ what: @autoclosure () -> String, timeout: Duration = LoadctlProcess.defaultTimeout,
    every interval: Duration = .milliseconds(10), _ condition: () throws -> Value?
  ) async throws -> Value {
    let deadline = ContinuousClock.now + timeout
    while true {
      let expired = ContinuousClock.now >= deadline
      if let value = try condition() { return value }
      if expired { throw HarnessError.timedOut(what(), after: timeout, output: "") }
      try await Task.sleep(for: interval)
    }
  }

  /// Waits until `condition` is true.
  static func until(
    _ what: @autoclosure () -> String, timeout: Duration = LoadctlProcess.defaultTimeout,
    every interval: Duration = .milliseconds(10), _ condition: () throws -> Bool
  ) async throws {
    try await until(what(), timeout: timeout, every: interval) { try condition() ? () : nil }
  }
}
