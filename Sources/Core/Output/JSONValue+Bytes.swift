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

  /// Appends a number like ``writeNumber(_:to:)-(_,String)`` does.
  ///
  /// Most numbers in events have a few decimals (prices in cents, `elapsed_ms` in microseconds),
  /// and `Double.description` builds a `String` for each; those are written here from integer
  /// digits instead, with the same text (see ``writeDecimal(_:to:)``).
  public static func writeNumber(_ value: Double, to out: inout [UInt8]) {
    guard value.isFinite else {
      out.append(contentsOf: "null".utf8)
      return
    }
    if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
      writeInt(Int(value), to: &out)
    } else if !writeDecimal(value, to: &out) {
      out.append(contentsOf: value.description.utf8)
    }
  }

  /// Appends `value` in decimal, as `String(value)` spells it.
  public static func writeInt(_ value: Int, to out: inout [UInt8]) {
    writeDecimal(negative: value < 0, whole: value.magnitude, fraction: 0, decimals: 0, to: &out)
  }

  /// Appends a non-integer `value` that has at most 6 decimals and a magnitude in [0.001, 1e9),
  /// such as `101.27` or `0.125`; returns `false`, appending nothing, for any other value.
  ///
  /// The text is `Double.description`'s: in that range it writes no exponent, and its shortest
  /// round-trip digits are those of the decimal with the fewest decimals that rounds to `value`.
  /// `(value × 10⁶).rounded()` finds that decimal's digits (padded with zeros to 6 decimals)
  /// whenever dividing them by 10⁶ gives `value` back, since division rounds correctly; two
  /// decimals with at most 6 decimals are at least 10⁻⁶ apart, far more than a double's spacing
  /// below 1e9 (1.2e-7), so no shorter decimal can round to `value` too.
  static func writeDecimal(_ value: Double, to out: inout [UInt8]) -> Bool {
    let magnitude = abs(value)
    guard magnitude >= 1e-3, magnitude < 1e9 else { return false }
    let scaled = (magnitude * 1e6).rounded()
    guard scaled / 1e6 == magnitude else { return false }
    let micros = UInt(scaled)
    var fraction = micros % 1_000_000
    guard fraction != 0 else { return false }
    var decimals = 6
    while fraction % 10 == 0 {
      fraction /= 10
      decimals -= 1
    }
    writeDecimal(
      negative: value < 0, whole: micros / 1_000_000, fraction: fraction, decimals: decimals,
      to: &out)
    return true
  }

  /// Appends `-whole.fraction`, the fraction written with `decimals` digits (none: no point).
  ///
  /// The digits are made right to left in a stack buffer and appended in one copy: appending
  /// them one by one costs a capacity check each, and this runs several times per event line.
  private static func writeDecimal(
    negative: Bool, whole: UInt, fraction: UInt, decimals: Int, to out: inout [UInt8]
  ) {
    // 20 digits of a UInt, a sign, a point and 6 decimals.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 28) { buffer in
      var index = buffer.count
      var rest = fraction
      for _ in 0..<decimals {
        index -= 1
        buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      }
      if decimals > 0 {
        index -= 1
        buffer[index] = UInt8(ascii: ".")
      }
      rest = whole
      repeat {
        index -= 1
        buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest != 0
      if negative {
        index -= 1
        buffer[index] = UInt8(ascii: "-")
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
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
