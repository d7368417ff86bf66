import LoadctlCommands
import Testing

/// Raw terminal bytes to keys: UTF-8 across reads, control keys, escape sequences, and keys the
/// same however the bytes are split between reads.
@Suite struct KeyDecoderTests {
  @Test(
    arguments: [
      ([0x71], [Key.character("q")]),
      ([0x0D], [.enter]),
      ([0x7F], [.backspace]),
      ([0x03], [.interrupt]),
      ([0x04], [.endOfInput]),
      ([0x1B], [.escape]),
      ([0x1B, 0x5B, 0x41], [.up]),
      ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43, 0x61], [.other, .character("a")]),
      ([0xC3, 0xA9], [.character("é")]),
      ([0xED, 0x95, 0x9C], [.character("한")]),
      ([0xFF, 0x61], [.other, .character("a")]),
      ([0x1B, 0x78], [.alt("x")]),
      ([0x1B, 0x4F, 0x41], [.up]),
      ([0x1B, 0x1B, 0x5B, 0x44], [.escape, .left]),
      ([0xF0, 0x03], [.other, .interrupt]),
      ([0xE2, 0x71], [.other, .character("q")]),
      ([0xF0, 0x9F, 0x1C], [.other, .quit]),
      ([0x61, 0xC3, 0x62, 0x63], [.character("a"), .other, .character("b"), .character("c")]),
      ([0x1B, 0x5B, 0x31, 0x03], [.other, .interrupt]),
      ([0x1B, 0xC3, 0xA9], [.other]),
      ([0x1B, 0xED, 0x95, 0x9C, 0x71], [.other, .character("q")]),
      ([0x1B, 0xF0, 0x9F, 0x98, 0x80], [.other]),
      ([0x1B, 0xFF, 0x61], [.escape, .other, .character("a")]),
      ([0x1B, 0xC3, 0x71], [.escape, .other, .character("q")]),
      ([0x1B, 0xC3], [.other]),
      ([0x1B, 0x5B, 0x42], [.down]), ([0x1B, 0x5B, 0x43], [.right]), ([0x1B, 0x5B, 0x44], [.left]),
      ([0x1B, 0x5B, 0x48], [.home]), ([0x1B, 0x4F, 0x46], [.end]),
      ([0x1B, 0x5B, 0x31, 0x7E], [.home]),
      ([0x1B, 0x5B, 0x34, 0x7E], [.end]), ([0x1B, 0x5B, 0x33, 0x7E], [.delete]),
      ([0x1B, 0x5B, 0x35, 0x7E], [.pageUp]), ([0x1B, 0x5B, 0x36, 0x7E], [.pageDown]),
      ([0x1B, 0x5B, 0x5A], [.backTab]), ([0x09], [.tab]), ([0x01], [.control("a")]),
      ([0x15], [.control("u")]), ([0x17], [.control("w")]), ([0x07], [.control("g")]),
      ([0x1B, 0x62], [.alt("b")]), ([0x1B, 0x20], [.other]), ([0x00], [.other]),
    ] as [([UInt8], [Key])])
  func decodes(bytes: [UInt8], keys: [Key]) {
    var decoder = KeyDecoder()
    #expect(decoder.decode(bytes) + decoder.flushPending() == keys)
  }

  @Test func utf8SplitAcrossReadsWaitsForTheRest() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x73, 0xED, 0x95]) == [.character("s")])
    #expect(decoder.decode([0x9C, 0x21]) == [.character("한"), .character("!")])
  }

  @Test func aLoneEscapeAtTheEndWaitsForTheRestOfItsSequence() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x61, 0x1B]) == [.character("a")])
    #expect(decoder.hasPendingEscape)
    #expect(decoder.decode([0x5B, 0x44]) == [.left])
    #expect(!decoder.hasPendingEscape)
    #expect(decoder.flushPending() == [])
  }

  @Test func aLoneEscapeIsEscOnceNoMoreBytesCome() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.flushPending() == [.escape])
    #expect(!decoder.hasPendingEscape)
    #expect(decoder.decode([0x44]) == [.character("D")])
  }

  @Test func aCSISequenceSplitInThreeIsOneKey() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B, 0x5B]) == [])
    #expect(decoder.decode(Array("1;5".utf8)) == [])
    #expect(decoder.hasPendingEscape)
    #expect(decoder.decode([0x43, 0x7A]) == [.other, .character("z")])
  }

  @Test func anUnfinishedSequenceIsOneOtherKeyOnceNoMoreBytesCome() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B, 0x5B, 0x31]) == [])
    #expect(decoder.flushPending() == [.other])
    #expect(decoder.decode([0x7E]) == [.character("~")])
  }

  /// A UTF-8 sequence that is already invalid does not wait for more bytes; a valid start does.
  @Test func onlyAValidUTF8StartWaits() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0xF0, 0x71]) == [.other, .character("q")])
    #expect(decoder.decode([0xF0, 0x9F]) == [])
    #expect(!decoder.hasPendingEscape)
    #expect(decoder.decode([0x98, 0x80]) == [.character("😀")])
  }

  @Test func threeThousandLeftArrowsInReadsOf256BytesAreThreeThousandLeftKeys() {
    let bytes = Array(Array(repeating: [UInt8]([0x1B, 0x5B, 0x44]), count: 3000).joined())
    var decoder = KeyDecoder()
    var keys: [Key] = []
    for start in stride(from: 0, to: bytes.count, by: 256) {
      keys += decoder.decode(bytes[start..<min(start + 256, bytes.count)])
    }
    keys += decoder.flushPending()
    #expect(keys == Array(repeating: .left, count: 3000))
  }

  /// Byte strings and their keys: a bracketed paste, arrows in both modes, Alt+x, Esc twice,
  /// invalid UTF-8 before control keys, sequences a control byte or escape byte cuts short, and
  /// Alt with non-ASCII keys.
  static let samples: [([UInt8], [Key])] = [
    (
      Array("\u{1B}[200~ab é 한\u{1B}[201~".utf8),
      [.other] + "ab é 한".map { .character($0) } + [.other]
    ),
    (
      Array("a\u{1B}[D\u{1B}[1;5C\u{1B}OA\u{1B}x\u{1B}\u{1B}[Bq".utf8),
      [.character("a"), .left, .other, .up, .alt("x"), .escape, .down, .character("q")]
    ),
    (
      [0x61, 0xC3, 0x62, 0xF0, 0x03, 0xF0, 0x9F, 0x98, 0x80, 0x1B, 0x1B],
      [
        .character("a"), .other, .character("b"), .other, .interrupt, .character("😀"), .escape,
        .escape,
      ]
    ),
    (
      [0x1B, 0x5B, 0x31, 0x1B, 0x4F, 0x1B, 0xE2, 0x82, 0xAC, 0x1B, 0x7F, 0x1B, 0x5B],
      [.other, .other, .other, .other, .other]
    ),
    (
      Array("\u{1B}é\u{1B}😀a\u{1B}".utf8) + [0xE2, 0x71],
      [.other, .other, .character("a"), .escape, .other, .character("q")]
    ),
  ]

  /// Decoding a byte string in two calls split at any position gives the same keys as decoding
  /// it whole; each ends with ``KeyDecoder/flushPending()``, as the reader does when no more
  /// bytes come.
  @Test(arguments: samples)
  func keysDoNotDependOnWhereTheBytesAreSplit(bytes: [UInt8], expected: [Key]) {
    for split in 0...bytes.count {
      var decoder = KeyDecoder()
      let keys =
        decoder.decode(bytes[..<split]) + decoder.decode(bytes[split...]) + decoder.flushPending()
      #expect(keys == expected, "split at \(split)")
    }
  }

  /// Every byte in a read of its own, as a slow terminal may deliver them.
  @Test(arguments: samples)
  func keysDoNotDependOnReadsOfOneByte(bytes: [UInt8], expected: [Key]) {
    var decoder = KeyDecoder()
    #expect(bytes.flatMap { decoder.decode([$0]) } + decoder.flushPending() == expected)
  }

  @Test func aBracketedPasteSplitAnywhereTypesItsText() {
    let bytes = Array("\u{1B}[200~hé\u{1B}[201~".utf8)
    let expected: [Key] = [.other, .character("h"), .character("é"), .other]
    for split in 0...bytes.count {
      var decoder = KeyDecoder()
      let keys =
        decoder.decode(bytes[..<split]) + decoder.decode(bytes[split...]) + decoder.flushPending()
      #expect(keys == expected, "split at \(split)")
    }
  }
}
