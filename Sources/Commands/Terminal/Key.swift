/// A key press from an interactive terminal, decoded from raw bytes.
package enum Key: Sendable, Equatable {
  /// A printable character (UTF-8 decoded, so `é` and `한` are one key).
  case character(Character)
  case enter
  case backspace
  case escape
  /// Ctrl-C: in raw mode it arrives as a byte and takes the same path as SIGINT.
  case interrupt
  /// Ctrl-D.
  case endOfInput
  /// Ctrl-Z: in raw mode it arrives as a byte and stops the process as SIGTSTP would.
  case suspend
  /// Ctrl-\: in raw mode it arrives as a byte and ends the process as SIGQUIT would.
  case quit
  /// An escape sequence (arrows, function keys) or control byte the flows do not use.
  case other
}

/// Turns bytes from a raw-mode terminal into keys, across reads.
///
/// Multi-byte UTF-8 characters may be split between two reads, so partial sequences wait for
/// their remaining bytes. An escape byte followed by `[` or `O` in the same read starts a CSI/SS3
/// sequence (arrow keys) and is consumed whole; a lone escape is the Esc key.
package struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  package init() {}

  /// Decodes `bytes`, keeping an incomplete trailing UTF-8 sequence for the next call.
  package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    var index = 0
    while index < pending.count {
      let byte = pending[index]
      switch byte {
      case 0x03: keys.append(.interrupt)
      case 0x04: keys.append(.endOfInput)
      case 0x1A: keys.append(.suspend)
      case 0x1C: keys.append(.quit)
      case 0x0D, 0x0A: keys.append(.enter)
      case 0x7F, 0x08: keys.append(.backspace)
      case 0x1B:
        let next = index + 1 < pending.count ? pending[index + 1] : nil
        guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
          keys.append(.escape)
          break
        }
        index += 2
        while index < pending.count, !(0x40...0x7E).contains(pending[index]) { index += 1 }
        keys.append(.other)
      case 0x00..<0x20:
        keys.append(.other)
      default:
        let length = KeyDecoder.utf8Length(byte)
        guard length > 0 else {
          keys.append(.other)
          break
        }
        guard index + length <= pending.count else {
          pending.removeFirst(index)
          return keys
        }
        let scalarBytes = Array(pending[index..<index + length])
        if let text = String(validating: scalarBytes, as: UTF8.self), let character = text.first {
          keys.append(.character(character))
        } else {
          keys.append(.other)
        }
        index += length - 1
      }
      index += 1
    }
    pending.removeAll()
    return keys
  }

  private static func utf8Length(_ lead: UInt8) -> Int {
    switch lead {
    case 0x20..<0x80: 1
    case 0xC2..<0xE0: 2
    case 0xE0..<0xF0: 3
    case 0xF0..<0xF5: 4
    default: 0
    }
  }
}
