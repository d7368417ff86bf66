/// Why a value's text is not a valid value of its kind: the message of a ``UsageError``.
struct ValueProblem: Error, Equatable {
  /// One sentence naming the option or argument, such as `invalid integer 'x' for '--rate'`.
  let message: String

  init(_ message: String) {
    self.message = message
  }
}

/// Checks a value's text against its ``ValueKind`` while parsing, converting it in the same step
/// where the kind stands for a number or a duration.
///
/// Checking up front means a bad `--latency` is reported with usage help before any work
/// starts; converting in the same step means no one reads the text again afterwards.
enum ValueValidator {
  /// Why `text` is not a valid value of `kind`, or `nil` when it is.
  ///
  /// - Parameters:
  ///   - text: The value as typed.
  ///   - kind: What the option or argument expects.
  ///   - name: How messages refer to it, such as `--latency` or `<url>`.
  /// - Returns: The message for a ``UsageError``, or `nil` when the value is fine.
  static func problem(with text: String, kind: ValueKind, name: String) -> String? {
    do throws(ValueProblem) {
      _ = try checked(text, kind: kind, name: name)
      return nil
    } catch {
      return error.message
    }
  }

  /// `text` as written, once it is known to be a valid value of `kind`.
  /// - Throws: ``ValueProblem`` naming `name` when it is not.
  static func checked(_ text: String, kind: ValueKind, name: String) throws(ValueProblem)
    -> String
  {
    switch kind {
    case .string, .suggested:
      break
    case .int, .nonNegativeInt, .positiveInt:
      _ = try integer(text, kind: kind, name: name)
    case .double:
      _ = try number(text, name: name)
    case .duration:
      _ = try duration(text, name: name)
    case .file:
      guard !text.isEmpty else {
        throw ValueProblem(
          "empty path for '\(name)' (use a file path, or - for standard input)")
      }
    case .outputFile:
      guard !text.isEmpty else { throw ValueProblem("empty path for '\(name)' (use a file path)") }
    case .regularFile:
      guard !text.isEmpty else { throw ValueProblem("empty path for '\(name)' (use a file path)") }
      guard text != "-" else {
        throw ValueProblem(
          "'\(name)' is read from a file, not standard input (for a file named -, give ./-)")
      }
    case .command:
      guard !text.allSatisfy(\.isWhitespace) else {
        throw ValueProblem("empty command for '\(name)'")
      }
    case .url:
      guard isURL(text) else {
        throw ValueProblem(
          "invalid URL '\(URLAuthority.redactingLikelySecrets(text))' for '\(name)' (use "
            + "scheme://host, such as http://localhost:8080)")
      }
    case .choice(let choices):
      _ = try choice(text, among: choices, name: name)
    }
    return text
  }

  /// `text` as a whole number of `kind` (`.int`, `.nonNegativeInt` or `.positiveInt`).
  /// - Throws: ``ValueProblem`` when it is not a whole number, or below the kind's least value.
  static func integer(_ text: String, kind: ValueKind, name: String) throws(ValueProblem) -> Int {
    guard let value = Int(text) else {
      throw ValueProblem("invalid integer '\(text)' for '\(name)'")
    }
    if kind == .nonNegativeInt, value < 0 {
      throw ValueProblem("invalid value '\(text)' for '\(name)' (must be 0 or more)")
    }
    if kind == .positiveInt, value < 1 {
      throw ValueProblem("invalid value '\(text)' for '\(name)' (must be 1 or more)")
    }
    return value
  }

  /// Whether `text` holds only what a decimal number is written with — digits, a sign, a point,
  /// an exponent — so that `Double(_:)`, which also reads hex floats (`0x10`), `inf` and `nan`,
  /// reads it as a decimal number or not at all.
  static func isDecimal(_ text: String) -> Bool {
    text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"),
        UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
        true
      default: false
      }
    }
  }

  /// `text` as a finite decimal number.
  /// - Throws: ``ValueProblem`` when it is not one; the message says so when it is `inf`, `nan`
  ///   or the like.
  static func number(_ text: String, name: String) throws(ValueProblem) -> Double {
    guard isDecimal(text), let value = Double(text), value.isFinite else {
      let finite = Double(text)?.isFinite == false ? " (must be finite)" : ""
      throw ValueProblem("invalid number '\(text)' for '\(name)'\(finite)")
    }
    return value
  }

  /// `text` read by ``parseDuration(_:)``.
  /// - Throws: ``ValueProblem`` listing the accepted forms when it is not a duration.
  static func duration(_ text: String, name: String) throws(ValueProblem) -> Duration {
    guard let value = parseDuration(text) else {
      throw ValueProblem("invalid duration '\(text)' for '\(name)' (\(durationForms))")
    }
    return value
  }

  /// `text` read by ``parseDuration(_:)``, once it is known to be at least 1ns: the finest wait
  /// a clock takes, below which a duration would act as `0`.
  /// - Throws: ``ValueProblem`` when it is not a duration, or when it is `0` or less than 1ns.
  static func positiveDuration(_ text: String, name: String) throws(ValueProblem) -> Duration {
    let value = try duration(text, name: name)
    guard value >= .nanoseconds(1) else {
      let least = value == .zero ? "more than 0" : "at least 1ns"
      throw ValueProblem("invalid value '\(text)' for '\(name)' (must be \(least))")
    }
    return value
  }

  /// The position of `text` among `choices`.
  /// - Throws: ``ValueProblem`` listing the choices when it is none of them.
  static func choice(_ text: String, among choices: [String], name: String) throws(ValueProblem)
    -> Int
  {
    guard let index = choices.firstIndex(of: text) else {
      let list = choices.joined(separator: ", ")
      throw ValueProblem("invalid value '\(text)' for '\(name)' (choose from \(list))")
    }
    return index
  }

  /// Whether `text` has the shape `scheme://[user@]host[:port][/path...]`.
  ///
  /// Deliberately shallow: it catches typos such as a missing scheme or host without
  /// pulling in Foundation's URL parser, and leaves the rest to curl.
  static func isURL(_ text: String) -> Bool {
    guard !text.contains(where: \.isWhitespace), let separator = text.firstRange(of: "://") else {
      return false
    }
    let scheme = text[..<separator.lowerBound]
    guard let first = scheme.first, first.isASCII, first.isLetter,
      scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return false }
    let authority = text[separator.upperBound...].prefix { !"/?#".contains($0) }
    let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
    guard let (host, port) = URLAuthority.split(hostAndPort) else { return false }
    guard !host.isEmpty else { return false }
    if let port {
      guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
        (0...65535).contains(number)
      else { return false }
    }
    return true
  }
}
