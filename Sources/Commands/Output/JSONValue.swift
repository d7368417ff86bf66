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
    var bytes: [UInt8] = []
    write(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends compact JSON text to `out`.
  public func write(to out: inout String) {
    out += serialized
  }

  /// Appends compact JSON text to `out`, as UTF-8.
  public func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
    case .int(let value): JSONValue.writeInt(value, to: &out)
    case .double(let value): JSONValue.writeNumber(value, to: &out)
    case .string(let value): JSONValue.writeString(value, to: &out)
    case .array(let values):
      out.append(UInt8(ascii: "["))
      for (index, value) in values.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        value.write(to: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let pairs):
      out.append(UInt8(ascii: "{"))
      for (index, (key, value)) in pairs.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSONValue.writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        value.write(to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// Writes a finite number in its shortest round-trip form; NaN and infinities become `null`.
  public static func writeNumber(_ value: Double, to out: inout String) {
    out += JSONValue.double(value).serialized
  }

  /// Like the `String` form, appending UTF-8 to `out`.
  public static func writeNumber(_ value: Double, to out: inout [UInt8]) {
    guard value.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
      writeInt(Int(value), to: &out)
    } else if let thousandths = wholeThousandths(value) {
      // The shortest round-trip form of a price or of `elapsed_ms`, without `description`'s
      // general algorithm.
      if value < 0 { out.append(UInt8(ascii: "-")) }
      writeInt(thousandths / 1000, to: &out)
      out.append(UInt8(ascii: "."))
      var fraction = thousandths % 1000
      var divisor = 100
      while fraction > 0 {
        out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / divisor))
        fraction %= divisor
        divisor /= 10
      }
    } else {
      out.append(contentsOf: value.description.utf8)
    }
  }

  /// `|value| × 1000` when `value` is not integral and is the `Double` nearest to a number of
  /// whole thousandths below 10^12 in magnitude; else `nil`.
  ///
  /// Then the thousandths, written out with trailing zeros dropped, are its shortest round-trip
  /// form: they read back as `value` (division is correctly rounded), and no other decimal with
  /// as few digits does (below 10^12 a `Double`'s step is under 0.000123, and any other decimal
  /// of at most three places is at least 0.001 away).
  private static func wholeThousandths(_ value: Double) -> Int? {
    let magnitude = abs(value)
    guard magnitude < 1e12 else { return nil }
    let thousandths = (magnitude * 1000).rounded()
    guard thousandths / 1000 == magnitude else { return nil }
    return Int(thousandths)
  }

  /// Writes `value` in decimal, as `String(value)` does.
  public static func writeInt(_ value: Int, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    if magnitude < 10 {
      out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
      return
    }
    // The digits from the last, into a buffer on the stack (UInt.max has 20), appended at once.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      while magnitude > 0 {
        start -= 1
        digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// Writes `value` as a JSON string with the escapes RFC 8259 requires.
  public static func writeString(_ value: String, to out: inout String) {
    out += JSONValue.string(value).serialized
  }

  /// Like the `String` form, appending UTF-8 to `out`.
  ///
  /// Works on UTF-8 bytes: runs between characters that need an escape are copied whole (and a
  /// string without any, the usual key or event name, in one append). Besides what RFC 8259
  /// requires, the scalars ``Unicode/Scalar/isTerminalUnsafe`` names are escaped — DEL, the C1
  /// controls (which some terminals take as escape sequences), the bidirectional formatting
  /// characters and the line and paragraph separators — so that no JSON line can drive or
  /// rearrange a terminal it is printed on.
  public static func writeString(_ value: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { bytes in
      var plainStart = 0
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
          index += 1
          continue
        }
        let (width, scalar) = escapedScalar(bytes, at: index)
        guard width > 0 else {
          index += 1
          continue
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart..<index]))
        out.append(contentsOf: escape(scalar).utf8)
        index += width
        plainStart = index
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainStart...]))
    }
    out.append(UInt8(ascii: "\""))
  }

  /// The scalar of the UTF-8 sequence at `index` and its length in bytes, when it is written as
  /// an escape (a C0 control, `"`, `\`, or ``Unicode/Scalar/isTerminalUnsafe``); else width 0.
  private static func escapedScalar(
    _ bytes: UnsafeBufferPointer<UInt8>, at index: Int
  ) -> (width: Int, scalar: UInt32) {
    let byte = bytes[index]
    if byte < 0x80 { return (1, UInt32(byte)) }
    // Only C1 (C2 80–9F), U+061C (D8 9C) and U+2000–U+207F (E2 80–81 xx) hold unsafe scalars.
    guard byte == 0xC2 || byte == 0xD8 || byte == 0xE2, index + 1 < bytes.count else {
      return (0, 0)
    }
    let width = byte == 0xE2 ? 3 : 2
    guard index + width <= bytes.count else { return (0, 0) }
    var scalar = UInt32(byte & (width == 3 ? 0x0F : 0x1F))
    for offset in 1..<width { scalar = scalar << 6 | UInt32(bytes[index + offset] & 0x3F) }
    guard let unicode = Unicode.Scalar(scalar), unicode.isTerminalUnsafe else { return (0, 0) }
    return (width, scalar)
  }

  /// The escape sequence for a scalar that is not written raw.
  static func escape(_ scalar: UInt32) -> String {
    switch scalar {
    case UInt32(UInt8(ascii: "\"")): return "\\\""
    case UInt32(UInt8(ascii: "\\")): return "\\\\"
    case UInt32(UInt8(ascii: "\n")): return "\\n"
    case UInt32(UInt8(ascii: "\r")): return "\\r"
    case UInt32(UInt8(ascii: "\t")): return "\\t"
    default:
      let hex = String(scalar, radix: 16)
      return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
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
