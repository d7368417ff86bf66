import LoadctlCore

/// The counter screen of the TCA effect example: a count, and whether a delayed increment is still on its way.
///
/// The TCA example keeps `isLoading` as its own flag. Here it is derived from `inFlight`, the number of
/// delayed increments started or waiting, because with the `queue` and `parallel` policies several
/// can be pending at once and a single flag cannot say when the last one has landed. With `drop`
/// and `latest` at most one is ever pending, so `inFlight` is 0 or 1 and mirrors `isLoading`.
package struct CounterState: Sendable, Equatable, ReportableState {
  package var count = 0
  /// Delayed increments whose response has not arrived yet (running or queued).
  package var inFlight = 0

  package init(count: Int = 0, inFlight: Int = 0) {
    self.count = count
    self.inFlight = inFlight
  }

  /// The example's progress indicator: on from the tap until the last pending response lands.
  package var isLoading: Bool { inFlight > 0 }

  package var snapshot: JSONValue {
    .object([
      ("count", .int(count)), ("is_loading", .bool(isLoading)), ("in_flight", .int(inFlight)),
    ])
  }

  package var summary: String {
    var text = "count: \(count), isLoading: \(isLoading)"
    if inFlight > 1 { text += ", inFlight: \(inFlight)" }
    return text
  }

  /// The fields that differ from `old`, as `name: old → new`, in the spirit of TCA's
  /// `_printChanges`.
  ///
  /// `inFlight` is only shown when it says more than `isLoading` does, that is when either side
  /// counts more than one pending increment.
  package func changes(since old: CounterState) -> [String] {
    var changes: [String] = []
    if count != old.count { changes.append("count: \(old.count) → \(count)") }
    if isLoading != old.isLoading {
      changes.append("isLoading: \(old.isLoading) → \(isLoading)")
    }
    if inFlight != old.inFlight, max(inFlight, old.inFlight) > 1 {
      changes.append("inFlight: \(old.inFlight) → \(inFlight)")
    }
    return changes
  }
}
