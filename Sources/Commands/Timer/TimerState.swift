import LoadctlCore

/// TCA's `Timers` example state: whether the timer runs, and how many ticks it has counted.
///
/// The TCA example counts `secondsElapsed`; here a tick is one `--interval`, so the elapsed time is
/// `ticks × interval`, which is what text output shows as `mm:ss`.
package struct TimerState: Sendable, Equatable, ReportableState {
  package var isTimerActive = false
  package var ticks = 0

  package init(isTimerActive: Bool = false, ticks: Int = 0) {
    self.isTimerActive = isTimerActive
    self.ticks = ticks
  }

  package var snapshot: JSONValue {
    .object([("is_timer_active", .bool(isTimerActive)), ("ticks", .int(ticks))])
  }

  package var summary: String { "isTimerActive: \(isTimerActive), ticks: \(ticks)" }

  /// The fields that differ from `old`, as `name: old → new` (TCA's `_printChanges`).
  package func changes(since old: TimerState) -> [String] {
    var changes: [String] = []
    if isTimerActive != old.isTimerActive {
      changes.append("isTimerActive: \(old.isTimerActive) → \(isTimerActive)")
    }
    if ticks != old.ticks { changes.append("ticks: \(old.ticks) → \(ticks)") }
    return changes
  }
}
