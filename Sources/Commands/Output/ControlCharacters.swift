extension String {
  /// The text with control characters written as visible escapes: `\n`, `\r`, `\t`, `\0`,
  /// and `\u{1B}` for the rest of C0, DEL, C1, and the other scalars
  /// ``Unicode/Scalar/isTerminalUnsafe`` names (`\u{202E}`).
  ///
  /// Error lines quote what the user gave (an argument, an input line, a path). Written raw, a
  /// newline in it splits the one `Error:` line that scripts look for, a carriage return hides
  /// the start of the line, and an escape sequence from an untrusted input file would reach the
  /// terminal. Every `Error:` line passes its message through this where it is written.
  package var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isTerminalUnsafe) else { return self }
    var escaped = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case "\0": escaped += "\\0"
      case _ where scalar.isTerminalUnsafe:
        escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}

extension String {
  /// Appends ``escapingControlCharacters``'s UTF-8 to `buffer`; printable ASCII, the common
  /// case, goes as it is after one scan of its bytes.
  package func appendEscaped(to buffer: inout [UInt8]) {
    var text = self
    let plain = text.withUTF8 { bytes in
      guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
      buffer.append(contentsOf: bytes)
      return true
    }
    if !plain { buffer.append(contentsOf: escapingControlCharacters.utf8) }
  }
}

extension Unicode.Scalar {
  /// The scalars a terminal must not be given raw: C0 controls, DEL and C1 controls, which it
  /// acts on instead of showing; the bidirectional formatting characters (U+061C, U+200E,
  /// U+200F, U+202A–U+202E, U+2066–U+2069), which reorder the rest of the line so that it shows
  /// text other than it holds; and the line and paragraph separators (U+2028, U+2029).
  package var isTerminalUnsafe: Bool {
    switch value {
    case 0..<0x20, 0x7F...0x9F: true
    case 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
