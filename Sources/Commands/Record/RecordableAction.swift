import LoadctlCore

/// An action a recording can hold: written as JSON, read back as the same value.
///
/// The JSON is an object whose `action` field is the action's ``ReportableAction/name``, with
/// every associated value beside it, exactly: durations as integer nanoseconds, numbers in a
/// form that reads back to the same `Double`. `fromRecorded(recorded)` gives back a value equal
/// to the original, so a replay applies what the recorded run applied.
package protocol RecordableAction: ReportableAction {
  /// The action as one JSON object.
  var recorded: JSONValue { get }
  /// Appends ``recorded`` as compact JSON text; an action recorded once per input line or per
  /// batch writes itself without building its ``JSONValue`` first. By default,
  /// `recorded.write(to:)`.
  func writeRecorded(to buffer: inout [UInt8])
  /// Reads what ``recorded`` wrote, or says in one line why `value` is not such an action.
  static func fromRecorded(_ value: JSONValue) -> Result<Self, LineProblem>
}

extension RecordableAction {
  package func writeRecorded(to buffer: inout [UInt8]) { recorded.write(to: &buffer) }
}

extension [UInt8] {
  /// Appends `text`'s UTF-8 bytes: a literal the recorder writes for every line, without making
  /// a `String` of it.
  mutating func append(literal text: StaticString) {
    text.withUTF8Buffer { append(contentsOf: $0) }
  }
}
