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
  ///
  /// Works on UTF-8 bytes: every character that needs an escape is ASCII, so runs between them
  /// are copied whole (and a string without any, the usual key or event name, in one append).
  public static func writeString(_ value: String, to out: inout String) {
    out += "\""
    let utf8 = value.utf8
    var plainStart = utf8.startIndex
    var index = plainStart
    while index != utf8.endIndex {
      let byte = utf8[index]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        out += Substring(utf8[plainStart..<index])
        out += escape(byte)
        plainStart = utf8.index(after: index)
      }
      index = utf8.index(after: index)
    }
    if plainStart == utf8.startIndex {
      out += value
    } else {
      out += Substring(utf8[plainStart...])
    }
    out += "\""
  }

  /// The escape sequence for an ASCII byte that cannot appear raw in a JSON string.
  static func escape(_ byte: UInt8) -> String {
    switch byte {
    case UInt8(ascii: "\""): return "\\\""
    case UInt8(ascii: "\\"): return "\\\\"
    case UInt8(ascii: "\n"): return "\\n"
    case UInt8(ascii: "\r"): return "\\r"
    case UInt8(ascii: "\t"): return "\\t"
    default:
      let hex = String(byte, radix: 16)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
  }
}

extension JSONValue {
  /// Looks up a key of an object, for tests and renderers.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let pairs) = self else { return nil }
    return pairs.first { $0.0 == key }?.1
  }
}
