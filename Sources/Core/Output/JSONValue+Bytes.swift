/// JSON written as UTF-8 bytes, for JSON Lines at full speed.
///
/// Building a line as a `String` costs a capacity and uniqueness check per append and a copy
/// when it grows; a ticker line has some thirty appends, and they took longer than formatting
/// the numbers. Appending bytes to a reused `[UInt8]` (see `OutputWriter.write(_:)`) is a bounds
/// check and a store. The output is byte for byte what the `String` writers produce.
///
/// ```swift
/// var line: [UInt8] = []
/// JSONValue.object([("price", 101.27)]).write(to: &line)  // {"price":101.27}
/// ```
extension JSONValue {
  /// Appends compact JSON to `out`.
  public func write(to out: inout [UInt8]) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
    case .int(let value): out.append(contentsOf: String(value).utf8)
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

  /// Appends a number like ``writeNumber(_:to:)-(_,String)`` does.
  public static func writeNumber(_ value: Double, to out: inout [UInt8]) {
    guard value.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
      out.append(contentsOf: String(Int(value)).utf8)
    } else {
      out.append(contentsOf: value.description.utf8)
    }
  }

  /// Appends a string like ``writeString(_:to:)-(_,String)`` does.
  public static func writeString(_ value: String, to out: inout [UInt8]) {
    let needsEscape = { (byte: UInt8) in
      byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
    out.append(UInt8(ascii: "\""))
    if !value.utf8.contains(where: needsEscape) {
      // The usual case (keys, event names): one copy.
      out.append(contentsOf: value.utf8)
    } else {
      for byte in value.utf8 {
        if needsEscape(byte) {
          out.append(contentsOf: escape(byte).utf8)
        } else {
          out.append(byte)
        }
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
