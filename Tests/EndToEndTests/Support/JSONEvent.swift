import Foundation

/// One line of loadctl's `--json` output, parsed into a dictionary.
///
/// Tests read fields by name rather than comparing whole lines, so that adding a field to an
/// event does not break every test, while `JSONLines.envelopeProblems` checks the envelope
/// (`seq`, `elapsed_ms`, `command`, `event`) that every event must carry.
struct JSONEvent {
  /// The 1-based line number in the output.
  let lineNumber: Int
  /// The line as written.
  let line: String
  /// The parsed object.
  let fields: [String: Any]

  /// Parses one line, which must hold a JSON object.
  ///
  /// - Throws: `HarnessError` naming the line when it is not a JSON object.
  init(parsing line: String, lineNumber: Int = 1) throws {
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    } catch {
      throw HarnessError.invalidJSON(line: lineNumber, text: line, reason: "\(error)")
    }
    guard let fields = object as? [String: Any] else {
      throw HarnessError.invalidJSON(line: lineNumber, text: line, reason: "not an object")
    }
    self.lineNumber = lineNumber
    self.line = line
    self.fields = fields
  }

  subscript(key: String) -> Any? { fields[key] }

  /// The value at a dotted path such as `to.state`, looking into nested objects.
  func value(at path: String) -> Any? { JSONEvent.value(at: path, in: fields) }

  /// The value of `key` if it is a string.
  func string(_ key: String) -> String? { fields[key] as? String }

  /// The value of `key` if it is a number.
  func number(_ key: String) -> Double? { JSONEvent.number(fields[key]) }

  /// The value of `key` if it is an integral number.
  func integer(_ key: String) -> Int? {
    guard let value = number(key), value == value.rounded(), abs(value) < 1e15 else { return nil }
    return Int(value)
  }

  /// The envelope's `seq`.
  var seq: Int? { integer("seq") }
  /// The envelope's `elapsed_ms`.
  var elapsedMilliseconds: Double? { number("elapsed_ms") }
  /// The envelope's `command`.
  var command: String? { string("command") }
  /// The envelope's `event`.
  var event: String? { string("event") }

  /// A `waitForLine` predicate: the line is a JSON object whose `expected` keys hold these
  /// string values. Keys may be dotted paths into nested objects, such as
  /// `["event": "transition", "to.state": "loading"]`.
  static func matching(_ expected: [String: String]) -> @Sendable (String) -> Bool {
    matching { fields in
      expected.allSatisfy { value(at: $0.key, in: fields) as? String == $0.value }
    }
  }

  /// A `waitForLine` predicate over the parsed object; lines that are not JSON never match.
  static func matching(
    _ test: @escaping @Sendable ([String: Any]) -> Bool
  ) -> @Sendable (String) -> Bool {
    { line in
      guard let event = try? JSONEvent(parsing: line) else { return false }
      return test(event.fields)
    }
  }

  /// Follows a dotted path through nested objects.
  static func value(at path: String, in fields: [String: Any]) -> Any? {
    var current: Any? = fields
    for key in path.split(separator: ".") {
      current = (current as? [String: Any])?[String(key)]
    }
    return current
  }

  /// A JSON number as `Double`, whichever way `JSONSerialization` boxed it.
  static func number(_ value: Any?) -> Double? {
    switch value {
    case let value as Int: Double(value)
    case let value as Double: value
    case let value as NSNumber where !(value is Bool): value.doubleValue
    default: nil
    }
  }
}
