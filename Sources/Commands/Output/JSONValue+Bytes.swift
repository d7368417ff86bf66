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
  public static func writeNumber(_ value: Double, to out: inout [UInt8]) {
    JSONTokens.append(to: &out, capacity: JSONTokens.maximumNumberLength) { $0.write(value) }
  }

  /// Appends `value` in decimal, as `String(value)` spells it.
  public static func writeInt(_ value: Int, to out: inout [UInt8]) {
    JSONTokens.append(to: &out, capacity: JSONTokens.maximumIntLength) { $0.write(value) }
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

/// A few JSON tokens written in place into a small stack buffer, then appended to a line in one
/// copy: for the hottest lines (a ticker writes a million a second), where appending each token
/// to an array costs a capacity check and a copy call apiece, and `Double.description` a
/// `String` per number.
///
/// The buffer's size is fixed by the caller, from the lengths of what it writes: literals,
/// ``maximumIntLength`` per integer and ``maximumNumberLength`` per number. Writing past it
/// is a programming error and traps.
///
/// ```swift
/// var line: [UInt8] = []
/// JSONTokens.append(to: &line, capacity: 64) { tokens in
///   tokens.write(",\"price\":")
///   tokens.write(101.27)
/// }
/// // ,"price":101.27
/// ```
public struct JSONTokens {
  /// The longest integer: `-9223372036854775808`.
  public static let maximumIntLength = 20
  /// The longest JSON number: `Double.description`'s longest (`-2.2250738585072014e-308`).
  public static let maximumNumberLength = 24

  private let base: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// The bytes written so far.
  public private(set) var count = 0

  private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
    self.base = base
    self.capacity = capacity
  }

  /// Runs `body` with tokens over a stack buffer of `capacity` bytes, then appends what it wrote
  /// to `out`.
  public static func append(
    to out: inout [UInt8], capacity: Int, _ body: (inout JSONTokens) -> Void
  ) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      guard let base = buffer.baseAddress else { return }
      var tokens = JSONTokens(base: base, capacity: buffer.count)
      body(&tokens)
      out.append(contentsOf: UnsafeBufferPointer(start: base, count: tokens.count))
    }
  }

  /// Makes room for `length` more bytes.
  private func reserve(_ length: Int) {
    precondition(count + length <= capacity, "JSONTokens: the buffer is too small")
  }

  /// Writes a literal as is (it must be valid JSON text, such as `,"price":` or `null`).
  public mutating func write(_ literal: StaticString) {
    let length = literal.utf8CodeUnitCount
    reserve(length)
    (base + count).update(from: literal.utf8Start, count: length)
    count += length
  }

  /// Writes `value` in decimal, as `String(value)` spells it.
  public mutating func write(_ value: Int) {
    writeDecimal(negative: value < 0, whole: value.magnitude, fraction: 0, decimals: 0)
  }

  /// Writes a finite number in its shortest round-trip form (`Double.description`, without
  /// `.0` for integers up to 2⁵³), and NaN and infinities as `null`, like
  /// ``JSONValue/writeNumber(_:to:)-(_,String)``.
  public mutating func write(_ value: Double) {
    guard value.isFinite else {
      write("null")
      return
    }
    if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
      write(Int(value))
    } else if !writeShortDecimal(value) {
      let text = value.description
      reserve(text.utf8.count)
      for byte in text.utf8 {
        base[count] = byte
        count += 1
      }
    }
  }

  /// Writes a non-integer `value` that has at most 6 decimals and a magnitude in [0.001, 1e9),
  /// such as `101.27` or `0.125`; returns `false`, writing nothing, for any other value.
  ///
  /// The text is `Double.description`'s: in that range it writes no exponent, and its shortest
  /// round-trip digits are those of the decimal with the fewest decimals that rounds to `value`.
  /// `(value × 10⁶).rounded()` finds that decimal's digits (padded with zeros to 6 decimals)
  /// whenever dividing them by 10⁶ gives `value` back, since division rounds correctly; two
  /// decimals with at most 6 decimals are at least 10⁻⁶ apart, far more than a double's spacing
  /// below 1e9 (1.2e-7), so no shorter decimal can round to `value` too.
  private mutating func writeShortDecimal(_ value: Double) -> Bool {
    let magnitude = abs(value)
    guard magnitude >= 1e-3, magnitude < 1e9 else { return false }
    let scaled = (magnitude * 1e6).rounded()
    guard scaled / 1e6 == magnitude else { return false }
    let micros = UInt(scaled)
    var fraction = micros % 1_000_000
    guard fraction != 0 else { return false }
    var decimals = 6
    if fraction % 1000 == 0 {
      fraction /= 1000
      decimals = 3
    }
    while fraction % 10 == 0 {
      fraction /= 10
      decimals -= 1
    }
    writeDecimal(
      negative: value < 0, whole: micros / 1_000_000, fraction: fraction, decimals: decimals)
    return true
  }

  /// Writes `-whole.fraction`, the fraction with `decimals` digits (none: no point), right to
  /// left once the length is known.
  private mutating func writeDecimal(negative: Bool, whole: UInt, fraction: UInt, decimals: Int) {
    var wholeDigits = 1
    var power: UInt = 10
    while wholeDigits < 20, whole >= power {
      wholeDigits += 1
      power &*= 10
    }
    let length = (negative ? 1 : 0) + wholeDigits + (decimals > 0 ? decimals + 1 : 0)
    reserve(length)
    var index = count + length
    var rest = fraction
    for _ in 0..<decimals {
      index -= 1
      base[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
    }
    if decimals > 0 {
      index -= 1
      base[index] = UInt8(ascii: ".")
    }
    rest = whole
    repeat {
      index -= 1
      base[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
    } while rest != 0
    if negative { base[count] = UInt8(ascii: "-") }
    count += length
  }
}
