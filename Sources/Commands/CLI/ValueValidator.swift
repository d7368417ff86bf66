/// Checks a value's text against its ``ValueKind`` while parsing.
///
/// Validating up front means a bad `--latency` is reported with usage help before any work
/// starts, and ``Invocation``'s typed getters can never fail at run time.
enum ValueValidator {
  /// Why `text` is not a valid value of `kind`, or `nil` when it is.
  ///
  /// - Parameters:
  ///   - text: The value as typed.
  ///   - kind: What the option or argument expects.
  ///   - name: How messages refer to it, such as `--latency` or `<url>`.
  /// - Returns: The message for a ``UsageError``, or `nil` when the value is fine.
  static func problem(with text: String, kind: ValueKind, name: String) -> String? {
    switch kind {
    case .string, .suggested:
      return nil
    case .int, .nonNegativeInt, .positiveInt:
      guard let value = Int(text) else { return "invalid integer '\(text)' for '\(name)'" }
      if kind == .nonNegativeInt, value < 0 {
        return "invalid value '\(text)' for '\(name)' (must be 0 or more)"
      }
      if kind == .positiveInt, value < 1 {
        return "invalid value '\(text)' for '\(name)' (must be 1 or more)"
      }
      return nil
    case .double:
      guard let value = Double(text), value.isFinite else {
        return "invalid number '\(text)' for '\(name)'"
      }
      return nil
    case .duration:
      guard parseDuration(text) != nil else {
        return "invalid duration '\(text)' for '\(name)' (\(durationForms))"
      }
      return nil
    case .file:
      guard !text.isEmpty else {
        return "empty path for '\(name)' (use a file path, or - for standard input)"
      }
      return nil
    case .command:
      guard !text.allSatisfy(\.isWhitespace) else { return "empty command for '\(name)'" }
      return nil
    case .url:
      guard isURL(text) else {
        return "invalid URL '\(URLAuthority.redactingUserinfo(text))' for '\(name)' (use "
          + "scheme://host, such as http://localhost:8080)"
      }
      return nil
    case .choice(let choices):
      guard choices.contains(text) else {
        let list = choices.joined(separator: ", ")
        return "invalid value '\(text)' for '\(name)' (choose from \(list))"
      }
      return nil
    }
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
