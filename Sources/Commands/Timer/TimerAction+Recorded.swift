import LoadctlCore

/// A timer action in a recording: `{"action":"toggle"}`, and for a tick
/// `{"action":"tick","missed":2,"lateness_ns":1234567}`.
///
/// Lateness is whole nanoseconds: attoseconds below a nanosecond are dropped, and a lateness
/// beyond about ±292 years is written clamped (``RecordedFields/nanoseconds(_:)``); a clock's
/// lateness is neither, so ticks read back equal.
extension TimerAction: RecordableAction {
  /// Every case as written, for ``RecordedFields/unknownAction(expected:)``.
  private static let recordedNames = ["toggle", "start", "stop", "reset", "tick"]

  package var recorded: JSONValue {
    guard case .tick(let tick) = self else { return .object([("action", .string(name))]) }
    return .object([
      ("action", .string(name)), ("missed", .int(tick.missed)),
      ("lateness_ns", .int(RecordedFields.nanoseconds(tick.lateness))),
    ])
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<TimerAction, LineProblem> {
    Result { () throws(LineProblem) -> TimerAction in
      let fields = try RecordedFields(value, of: "timer")
      switch fields.action {
      case "toggle": return .toggle
      case "start": return .start
      case "stop": return .stop
      case "reset": return .reset
      case "tick":
        return .tick(
          Tick(
            missed: try fields.count("missed"),
            lateness: try fields.duration(nanoseconds: "lateness_ns")))
      default: throw fields.unknownAction(expected: recordedNames)
      }
    }
  }
}
