import LoadctlCore

/// When a run was suspended by Ctrl-Z and continued (by `fg`, or any SIGCONT), on the run's own
/// time: what a `late` lint asks before it blames a busy machine. Live, the signal thread marks
/// each stop and continue (recorded as it is marked); in a replay, the recorded marks are applied
/// at their times, so a replay asks the same questions of the same times.
package final class Suspensions: Sendable {
  private struct State {
    var suspendedAt: Duration?
    var resumedAt: Duration?
  }

  /// Names the cause of a lateness when it can know one that is not the machine's.
  static let stoppedFromOutside = "the process was stopped (SIGSTOP) and continued while it waited"

  private let state = Locked(State())

  package init() {}

  /// The run stops now (before it does, so a step that runs right after the continue sees it).
  package func suspend(at time: Duration) { state.withLock { $0.suspendedAt = time } }

  /// The run was continued (after a Ctrl-Z, or a SIGSTOP from outside).
  package func resume(at time: Duration) { state.withLock { $0.resumedAt = time } }

  /// Whether the run was suspended at some moment of the `duration` before `now`: what waited
  /// that long may have waited for the person.
  package func wereSuspended(within duration: Duration, now: Duration) -> Bool {
    state.withLock { state in
      guard let suspended = state.suspendedAt else { return false }
      // Not yet continued as far as this run knows: the continue is happening now.
      let end = state.resumedAt.map { $0 >= suspended ? $0 : now } ?? now
      return end >= now - duration
    }
  }

  /// Why what waited `duration` before `now` was late: the process was stopped from outside
  /// (SIGSTOP) and continued within that time, or else `busy`.
  package func lateCause(within duration: Duration, now: Duration, busy: String) -> String {
    let continued = state.withLock { $0.resumedAt.map { $0 >= now - duration } ?? false }
    return continued ? Self.stoppedFromOutside : busy
  }
}
