/// Parses JSON text into a ``JSONValue``, keeping object keys in document order.
///
/// Profiles read from files and URLs are shown with their fields in the order the author wrote
/// them, which Foundation's dictionaries lose. The parser is strict RFC 8259 with a nesting limit,
/// and reports the byte offset of the first error, so bad input gets one precise message.
///
/// ```swift
/// let value = try JSONParser.parse(#"{"name":"Taylor","city":"Lisbon"}"#)
/// value["name"]  // .string("Taylor")
/// ```
public struct JSONParser {
  /// Why text is not valid JSON, with the byte offset where parsing stopped.
  public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
    /// What was wrong.
    public let reason: String
    /// Byte offset into the UTF-8 text.
    public let offset: Int
    public var description: String { "\(reason) at byte \(offset)" }
  }

  private let bytes: [UInt8]
  private var index = 0
  private let maxDepth: Int
  /// Whether a key that appears twice in one object is an error (RFC 8259 says names SHOULD be
  /// unique; readers disagree on which one counts).
  private let uniqueKeys: Bool

  /// Parses a complete JSON document.
  /// - Throws: ``Failure`` for invalid JSON, trailing content or nesting deeper than `maxDepth`.
  public static func parse(_ text: String, maxDepth: Int = 64) throws(Failure) -> JSONValue {
    try parse(bytes: Array(text.utf8), maxDepth: maxDepth)
  }

  /// Parses a complete JSON document from UTF-8 bytes.
  /// - Parameter uniqueKeys: Refuse an object that holds a key twice (a recording, which must
  ///   mean one thing to every reader), instead of keeping both.
  public static func parse(
    bytes: [UInt8], maxDepth: Int = 64, uniqueKeys: Bool = false
  ) throws(Failure) -> JSONValue {
    var parser = JSONParser(bytes: bytes, maxDepth: maxDepth, uniqueKeys: uniqueKeys)
    parser.skipSpace()
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.index == bytes.count else { throw parser.fail("unexpected content after JSON") }
    return value
  }

  private init(bytes: [UInt8], maxDepth: Int, uniqueKeys: Bool) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.uniqueKeys = uniqueKeys
  }

  private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipSpace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
      index += 1
    }
  }

  private mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
    for byte in literal.utf8 {
      guard current == byte else { throw fail("invalid literal") }
      index += 1
    }
    return value
  }

  private mutating func value(depth: Int) throws(Failure) -> JSONValue {
    guard depth < maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
    switch current {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try expect("true", .bool(true))
    case UInt8(ascii: "f"): return try expect("false", .bool(false))
    case UInt8(ascii: "n"): return try expect("null", .null)
    case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte):
      return try number()
    case nil: throw fail("unexpected end of input")
    default: throw fail("unexpected character")
    }
  }

  private mutating func object(depth: Int) throws(Failure) -> JSONValue {
    index += 1
    var pairs: [(String, JSONValue)] = []
    skipSpace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(pairs)
    }
    // Keys seen, once an object is too large to search its pairs (only with `uniqueKeys`).
    var seen: Set<String> = []
    while true {
      skipSpace()
      guard current == UInt8(ascii: "\"") else { throw fail("expected a string key") }
      let start = index
      let key = try string()
      if uniqueKeys {
        let repeated: Bool
        if pairs.count < 16 {
          repeated = pairs.contains { $0.0 == key }
        } else {
          if seen.isEmpty { seen = Set(pairs.map(\.0)) }
          repeated = !seen.insert(key).inserted
        }
        guard !repeated else {
          index = start
          throw fail("duplicate key \(JSONValue.string(key).serialized)")
        }
      }
      skipSpace()
      guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
      index += 1
      skipSpace()
      pairs.append((key, try value(depth: depth + 1)))
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(pairs)
      default: throw fail("expected ',' or '}'")
      }
    }
  }

  private mutating func array(depth: Int) throws(Failure) -> JSONValue {
    index += 1
    var values: [JSONValue] = []
    skipSpace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(values)
    }
    while true {
      skipSpace()
      values.append(try value(depth: depth + 1))
      skipSpace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(values)
      default: throw fail("expected ',' or ']'")
      }
    }
  }

  private mutating func string() throws(Failure) -> String {
    index += 1
    let contents = index
    var scalars = String.UnicodeScalarView()
    var start = index
    var raw: [UInt8] = []
    while true {
      guard let byte = current else { throw fail("unterminated string") }
      switch byte {
      case UInt8(ascii: "\""):
        raw += bytes[start..<index]
        guard let text = String(validating: raw, as: UTF8.self) else {
          index = firstInvalidUTF8(in: contents..<index)
          throw fail("invalid UTF-8 in string")
        }
        index += 1
        scalars.append(contentsOf: text.unicodeScalars)
        return String(scalars)
      case UInt8(ascii: "\\"):
        raw += bytes[start..<index]
        index += 1
        let scalar = try escape()
        raw += Array(String(Character(scalar)).utf8)
        start = index
      case 0..<0x20:
        throw fail("control character in string")
      default:
        index += 1
      }
    }
  }

  /// Where the first byte that is not valid UTF-8 lies in `range`, so the error points at it.
  ///
  /// Escapes in the range are ASCII, so scanning the document's bytes finds the same fault as
  /// validating the decoded string did.
  private func firstInvalidUTF8(in range: Range<Int>) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes[range].makeIterator()
    var offset = range.lowerBound
    while case .valid(let scalar) = parser.parseScalar(from: &iterator) {
      offset += scalar.count
    }
    return offset
  }

  private mutating func escape() throws(Failure) -> Unicode.Scalar {
    guard let byte = current else { throw fail("unterminated escape") }
    index += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let high = try hex4()
      if (0xD800..<0xDC00).contains(high) {
        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "u")
        else { throw fail("unpaired surrogate") }
        index += 2
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low),
          let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        else { throw fail("invalid surrogate pair") }
        return scalar
      }
      guard let scalar = Unicode.Scalar(high) else { throw fail("unpaired surrogate") }
      return scalar
    default:
      throw fail("invalid escape")
    }
  }

  private mutating func hex4() throws(Failure) -> UInt32 {
    guard index + 4 <= bytes.count,
      let text = String(validating: bytes[index..<index + 4], as: UTF8.self),
      let value = UInt32(text, radix: 16)
    else { throw fail("invalid \\u escape") }
    index += 4
    return value
  }

  private mutating func number() throws(Failure) -> JSONValue {
    let start = index
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, (0x30...0x39).contains(first) else { throw fail("invalid number") }
    if first == 0x30 {
      index += 1
    } else {
      skipDigits()
    }
    var isInteger = true
    if current == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard let digit = current, (0x30...0x39).contains(digit) else { throw fail("invalid number") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard let digit = current, (0x30...0x39).contains(digit) else { throw fail("invalid number") }
      skipDigits()
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    if isInteger, let value = Int(text) { return .int(value) }
    guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
    return .double(value)
  }

  private mutating func skipDigits() {
    while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
  }
}
