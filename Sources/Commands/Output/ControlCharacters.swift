extension String {
  /// The text with control characters written as visible escapes: `\n`, `\r`, `\t`, `\0`,
  /// and `\u{1B}` for the rest of C0, DEL and C1.
  ///
  /// Error lines quote what the user gave (an argument, an input line, a path). Written raw, a
  /// newline in it splits the one `Error:` line that scripts look for, a carriage return hides
  /// the start of the line, and an escape sequence from an untrusted input file would reach the
  /// terminal. Every `Error:` line passes its message through this where it is written.
  package var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
    var escaped = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case "\0": escaped += "\\0"
      case _ where scalar.isControlCharacter:
        escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and C1 controls: the scalars a terminal acts on instead of showing.
  fileprivate var isControlCharacter: Bool {
    value < 0x20 || (0x7F...0x9F).contains(value)
  }
}
