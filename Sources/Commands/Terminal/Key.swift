/// A key press from an interactive terminal, decoded from raw bytes.
package enum Key: Sendable, Equatable {
  /// A printable character (UTF-8 decoded, so `é` and `한` are one key).
  case character(Character)
  case enter
  case backspace
  /// Esc pressed alone: an escape byte that no byte of a longer sequence followed in time.
  case escape
  /// Ctrl-C: in raw mode it arrives as a byte and takes the same path as SIGINT.
  case interrupt
  /// Ctrl-D.
  case endOfInput
  /// Ctrl-Z: in raw mode it arrives as a byte and stops the process as SIGTSTP would.
  case suspend
  /// Ctrl-\: in raw mode it arrives as a byte and ends the process as SIGQUIT would.
  case quit
  /// Tab (Ctrl-I).
  case tab
  /// Shift-Tab (`ESC [ Z`).
  case backTab
  /// Delete, the key that deletes forward (`ESC [ 3 ~`).
  case delete
  case up, down, left, right, home, end, pageUp, pageDown
  /// Ctrl with a letter, as its lower-case letter: `control("a")` is Ctrl-A. Ctrl-C, Ctrl-D,
  /// Ctrl-H, Ctrl-I, Ctrl-J, Ctrl-M and Ctrl-Z are keys of their own.
  case control(Character)
  /// Alt (Meta) with a printable ASCII key: the escape byte, then the key.
  case alt(Character)
  /// A key the flows do not use: another escape sequence (function keys, arrows with
  /// modifiers, Alt with another key), another control byte, or bytes that are not UTF-8.
  case other
}

/// Turns bytes from a raw-mode terminal into keys, across reads.
///
/// How the bytes are split between calls to ``decode(_:)`` never changes the keys: a sequence
/// cut off by the end of the bytes waits for the next call. That is a UTF-8 character whose bytes
/// so far are valid, or an escape sequence: a lone escape byte, or a CSI (`ESC [`) or SS3
/// (`ESC O`) sequence without its final byte (0x40–0x7E). An escape sequence may never be
/// finished, so the reader waits only a short time for the rest and then calls
/// ``flushPending()``: a lone escape byte is the Esc key.
///
/// An escape byte followed by a printable ASCII byte is one ``Key/alt(_:)``, and followed by a
/// space, DEL or a UTF-8 character (Alt/Meta+key) one ``Key/other``, not Esc. A byte that cannot continue the sequence before it (a control byte after a UTF-8 lead
/// byte or inside a CSI sequence) ends that sequence as ``Key/other`` and is decoded as a key of
/// its own, so Ctrl-C, `q` and the rest are never swallowed.
package struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  package init() {}

  /// Whether an incomplete escape sequence waits for more bytes; when none come in time, the
  /// reader calls ``flushPending()``. (An incomplete UTF-8 character may wait indefinitely.)
  package var hasPendingEscape: Bool { pending.first == 0x1B }

  /// Decodes `bytes` after those kept by the last call, keeping an incomplete trailing sequence.
  package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    var index = 0
    while index < pending.count, let (key, length) = Self.key(at: index, in: pending) {
      keys.append(key)
      index += length
    }
    pending.removeFirst(index)
    return keys
  }

  /// Ends the wait for the rest of a pending sequence, when no more bytes came in time: a lone
  /// escape byte is ``Key/escape``, any other incomplete sequence one ``Key/other``.
  package mutating func flushPending() -> [Key] {
    defer { pending.removeAll() }
    if pending.isEmpty { return [] }
    return pending == [0x1B] ? [.escape] : [.other]
  }

  /// The key that starts at `start` in `bytes`, and how many bytes it takes; nil if the bytes
  /// end before it does.
  private static func key(at start: Int, in bytes: [UInt8]) -> (key: Key, length: Int)? {
    switch bytes[start] {
    case 0x03: (.interrupt, 1)
    case 0x04: (.endOfInput, 1)
    case 0x1A: (.suspend, 1)
    case 0x1C: (.quit, 1)
    case 0x0D, 0x0A: (.enter, 1)
    case 0x7F, 0x08: (.backspace, 1)
    case 0x09: (.tab, 1)
    case 0x1B: escapeKey(at: start, in: bytes)
    case 0x01...0x1A: (.control(Character(Unicode.Scalar(bytes[start] + 0x60))), 1)
    case 0x00..<0x20: (.other, 1)
    default: utf8Key(at: start, in: bytes)
    }
  }

  /// The key an escape byte at `start` begins: Esc, Alt/Meta+key (an ASCII key or a UTF-8
  /// character), or a CSI/SS3 sequence.
  private static func escapeKey(at start: Int, in bytes: [UInt8]) -> (key: Key, length: Int)? {
    guard start + 1 < bytes.count else { return nil }
    switch bytes[start + 1] {
    case UInt8(ascii: "["), UInt8(ascii: "O"):
      // Parameter and intermediate bytes (0x20–0x3F), then the final byte (0x40–0x7E).
      var index = start + 2
      while index < bytes.count {
        switch bytes[index] {
        case 0x40...0x7E:
          return (named(bytes[start + 2...index]) ?? .other, index + 1 - start)
        case 0x20..<0x40: index += 1
        default: return (.other, index - start)
        }
      }
      return nil
    case 0x21...0x7E: return (.alt(Character(Unicode.Scalar(bytes[start + 1]))), 2)
    case 0x20...0x7F: return (.other, 2)
    case 0x80...:
      // Alt with a non-ASCII key: the escape byte and the whole character. Bytes that are not a
      // character leave the escape byte alone, the Esc key.
      guard let (key, length) = utf8Key(at: start + 1, in: bytes) else { return nil }
      guard case .character = key else { return (.escape, 1) }
      return (.other, 1 + length)
    default: return (.escape, 1)
    }
  }

  /// The key a CSI or SS3 sequence names, from what follows `ESC [` or `ESC O` (its final byte
  /// last): the arrows, Home, End, Page Up and Down, Delete and Shift-Tab, as xterm, VT220 and
  /// rxvt send them without modifiers; `nil` for any other.
  private static func named(_ sequence: ArraySlice<UInt8>) -> Key? {
    switch String(decoding: sequence, as: UTF8.self) {
    case "A": .up
    case "B": .down
    case "C": .right
    case "D": .left
    case "H", "1~", "7~": .home
    case "F", "4~", "8~": .end
    case "3~": .delete
    case "5~": .pageUp
    case "6~": .pageDown
    case "Z": .backTab
    default: nil
    }
  }

  /// The character a UTF-8 lead (or ASCII) byte at `start` begins; ``Key/other`` for a byte that
  /// cannot start one, for a lead byte and the continuation bytes before the first byte that is
  /// not one, and for a complete but invalid sequence (overlong, a surrogate).
  private static func utf8Key(at start: Int, in bytes: [UInt8]) -> (key: Key, length: Int)? {
    let length = utf8Length(bytes[start])
    guard length > 0 else { return (.other, 1) }
    for offset in 1..<length {
      guard start + offset < bytes.count else { return nil }
      guard (0x80...0xBF).contains(bytes[start + offset]) else { return (.other, offset) }
    }
    let scalarBytes = bytes[start..<start + length]
    guard let text = String(validating: scalarBytes, as: UTF8.self), let character = text.first
    else { return (.other, length) }
    return (.character(character), length)
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
