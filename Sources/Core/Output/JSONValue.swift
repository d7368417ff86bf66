/// A JSON value with ordered object keys, written by hand for speed and stable output.
///
/// Events must print their keys in a fixed order (`seq`, `elapsed_ms`, `command`, `event`, …) so
/// transcripts compare byte for byte, and `JSONEncoder` costs ~8× more per line than formatting
/// here. Objects are arrays of pairs, so order is what the code wrote.
///
/// ```swift
/// let value: JSONValue = .object([("state", "loaded"), ("profile", .object([("name", "Taylor")]))])
/// value.serialized  // {"state":"loaded","profile":{"name":"Taylor"}}
/// ```
public enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral
{
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(floatLiteral value: Double) { self = .double(value) }

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    lhs.serialized == rhs.serialized
  }

  /// Compact JSON text, no spaces or newlines.
  public var serialized: String {
    var out = ""
    write(to: &out)
    return out
  }

  /// Appends compact JSON text to `out`.
  public func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .int(let value): out += String(value)
    case .double(let value): JSONValue.writeNumber(value, to: &out)
    case .string(let value): JSONValue.writeString(value, to: &out)
    case .array(let values):
      out += "["
      for (index, value) in values.enumerated() {
        if index > 0 { out += "," }
        value.write(to: &out)
      }
      out += "]"
    case .object(let pairs):
      out += "{"
      for (index, (key, value)) in pairs.enumerated() {
        if index > 0 { out += "," }
        JSONValue.writeString(key, to: &out)
        out += ":"
        value.write(to: &out)
      }
      out += "}"
    }
  }

  /// Writes a finite number in its shortest round-trip form; NaN and infinities become `null`.
  public static func writeNumber(_ value: Double, to out: inout String) {
    guard value.isFinite else {
      out += "null"
      return
    }
    if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
      out += String(Int(value))
    } else {
      out += value.description
    }
  }

  /// Writes `value` as a JSON string with the escapes RFC 8259 requires.
  public static func writeString(_ value: String, to out: inout String) {
    out += "\""
    var plainStart = value.unicodeScalars.startIndex
    let scalars = value.unicodeScalars
    var index = scalars.startIndex
    while index != scalars.endIndex {
      let scalar = scalars[index]
      let escape: String?
      switch scalar {
      case "\"": escape = "\\\""
      case "\\": escape = "\\\\"
      case "\n": escape = "\\n"
      case "\r": escape = "\\r"
      case "\t": escape = "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: escape = nil
      }
      if let escape {
        out.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
        out += escape
        plainStart = scalars.index(after: index)
      }
      index = scalars.index(after: index)
    }
    out.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
    out += "\""
  }
}

extension JSONValue {
  /// Looks up a key of an object, for tests and renderers.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let pairs) = self else { return nil }
    return pairs.first { $0.0 == key }?.1
  }
}
