import LoadctlCore

/// The fields of one recorded action, read with a one-line ``LineProblem`` for each thing wrong.
///
/// Each ``RecordableAction/fromRecorded(_:)`` opens its JSON with ``init(_:of:)``, which checks
/// that it is an object with a string `action`, switches on ``action``, and reads the case's
/// fields with the typed accessors. Messages name the flow, the action and the field:
///
/// ```swift
/// let fields = try RecordedFields(value, of: "counter")
/// fields.action                  // "delayed_increment_failed"
/// try fields.string("message")   // or: recorded counter action "delayed_increment_failed":
///                                //     field "message" must be a string, not an integer
/// ```
///
/// Fields other than the ones asked for are ignored, so a recording may carry more than a
/// reader needs.
package struct RecordedFields: Sendable {
  /// Which flow's action this is (`counter`, `search`), for messages.
  package let flow: String
  /// The `action` field: the recorded action's ``ReportableAction/name``.
  package let action: String
  /// The whole recorded object.
  private let value: JSONValue

  /// Opens `value` as a recorded action of `flow`.
  /// - Throws: ``LineProblem`` unless `value` is an object with a string `action` field.
  package init(_ value: JSONValue, of flow: String) throws(LineProblem) {
    guard case .object = value else {
      throw LineProblem(
        "a recorded \(flow) action must be a JSON object, not \(Self.kind(of: value))")
    }
    guard let tag = value["action"] else {
      throw LineProblem("a recorded \(flow) action has no \"action\" field")
    }
    guard case .string(let action) = tag else {
      throw LineProblem(
        "a recorded \(flow) action's \"action\" field must be a string, not \(Self.kind(of: tag))")
    }
    self.flow = flow
    self.action = action
    self.value = value
  }

  /// The problem for an ``action`` this flow does not have, listing the names it does.
  package func unknownAction(expected names: [String]) -> LineProblem {
    LineProblem(
      "unknown recorded \(flow) action \(quoted(action)) (expected "
        + names.joined(separator: ", ") + ")")
  }

  /// The field `key`, whatever its type.
  /// - Throws: ``LineProblem`` when the object has no such field.
  package func value(_ key: String) throws(LineProblem) -> JSONValue {
    guard let field = value[key] else { throw problem("has no \(quoted(key)) field") }
    return field
  }

  /// The string field `key`.
  package func string(_ key: String) throws(LineProblem) -> String {
    let field = try value(key)
    guard case .string(let text) = field else { throw wrongType(key, "a string", field) }
    return text
  }

  /// The integer field `key`; a number with a fraction or exponent is refused.
  package func int(_ key: String) throws(LineProblem) -> Int {
    let field = try value(key)
    guard case .int(let number) = field else { throw wrongType(key, "an integer", field) }
    return number
  }

  /// The largest count a recording may hold (2^53, the largest integer every JSON reader keeps
  /// exact): far beyond what a run reaches, and small enough that sums and differences of counts
  /// never overflow.
  package static let maxCount = 1 << 53

  /// The integer field `key` as a count: from 0 to ``maxCount``.
  package func count(_ key: String) throws(LineProblem) -> Int {
    let number = try int(key)
    guard (0...Self.maxCount).contains(number) else {
      throw problem("field \(quoted(key)) must be a count from 0 to 2^53, not \(number)")
    }
    return number
  }

  /// The boolean field `key`.
  package func bool(_ key: String) throws(LineProblem) -> Bool {
    let field = try value(key)
    guard case .bool(let flag) = field else { throw wrongType(key, "a boolean", field) }
    return flag
  }

  /// The number field `key`, integers included (``JSONValue`` writes integral doubles as
  /// integers).
  package func double(_ key: String) throws(LineProblem) -> Double {
    let field = try value(key)
    guard let number = Self.number(field) else { throw wrongType(key, "a number", field) }
    return number
  }

  /// The duration field `key`, written as integer nanoseconds (see ``nanoseconds(_:)``).
  package func duration(nanoseconds key: String) throws(LineProblem) -> Duration {
    let field = try value(key)
    guard case .int(let count) = field, let nanoseconds = Int64(exactly: count) else {
      throw wrongType(key, "an integer number of nanoseconds", field)
    }
    return .nanoseconds(nanoseconds)
  }

  /// The array-of-strings field `key`.
  package func strings(_ key: String) throws(LineProblem) -> [String] {
    try elements(key) { (element, index) throws(LineProblem) -> String in
      guard case .string(let text) = element else {
        throw wrongType("\(key)[\(index)]", "a string", element)
      }
      return text
    }
  }

  /// The array-of-numbers field `key`, integers included.
  package func doubles(_ key: String) throws(LineProblem) -> [Double] {
    try elements(key) { (element, index) throws(LineProblem) -> Double in
      guard let number = Self.number(element) else {
        throw wrongType("\(key)[\(index)]", "a number", element)
      }
      return number
    }
  }

  /// The array field `key` of integers, each within `range`.
  package func integers(_ key: String, in range: ClosedRange<Int>) throws(LineProblem) -> [Int] {
    try elements(key) { (element, index) throws(LineProblem) -> Int in
      guard case .int(let number) = element else {
        throw wrongType("\(key)[\(index)]", "an integer", element)
      }
      guard range.contains(number) else {
        throw problem("field \(quoted("\(key)[\(index)]")) is out of range (\(number))")
      }
      return number
    }
  }

  /// The array field `key`, each element read by `read` with its index (for messages).
  private func elements<Element>(
    _ key: String, _ read: (JSONValue, Int) throws(LineProblem) -> Element
  ) throws(LineProblem) -> [Element] {
    let field = try value(key)
    guard case .array(let elements) = field else { throw wrongType(key, "an array", field) }
    var values: [Element] = []
    values.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      values.append(try read(element, index))
    }
    return values
  }

  /// A duration as the integer nanoseconds ``duration(nanoseconds:)`` reads.
  ///
  /// Attoseconds below a nanosecond are dropped (toward zero), and a duration beyond what `Int`
  /// holds as nanoseconds (about ±292 years) is written as `Int.max` or `Int.min`.
  package static func nanoseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    let (total, overflowAgain) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
    guard !overflow, !overflowAgain else { return seconds < 0 ? .min : .max }
    return total
  }

  /// A problem with this action, as one line starting with the flow and action.
  package func problem(_ text: String) -> LineProblem {
    LineProblem("recorded \(flow) action \(quoted(action)) \(text)")
  }

  /// The problem for field `key` holding `found` where `expected` belongs.
  private func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> LineProblem {
    problem("field \(quoted(key)) must be \(expected), not \(Self.kind(of: found))")
  }

  /// A JSON number as a `Double`: integers convert (exactly, up to 2^53, all ``JSONValue``
  /// writes for an integral `Double`).
  private static func number(_ value: JSONValue) -> Double? {
    switch value {
    case .int(let number): Double(number)
    case .double(let number): number
    default: nil
    }
  }

  /// What kind of JSON `value` is, with an article, for messages (`an integer`, `null`).
  static func kind(of value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .int: "an integer"
    case .double: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}
