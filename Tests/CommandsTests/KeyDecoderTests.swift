import LoadctlCommands
import Testing

/// Raw terminal bytes to keys: UTF-8 across reads, control keys, escape sequences.
@Suite struct KeyDecoderTests {
  @Test(
    arguments: [
      ([0x71], [Key.character("q")]),
      ([0x0D], [.enter]),
      ([0x7F], [.backspace]),
      ([0x03], [.interrupt]),
      ([0x04], [.endOfInput]),
      ([0x1B], [.escape]),
      ([0x1B, 0x5B, 0x41], [.other]),
      ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43, 0x61], [.other, .character("a")]),
      ([0xC3, 0xA9], [.character("é")]),
      ([0xED, 0x95, 0x9C], [.character("한")]),
      ([0xFF, 0x61], [.other, .character("a")]),
    ] as [([UInt8], [Key])])
  func decodes(bytes: [UInt8], keys: [Key]) {
    var decoder = KeyDecoder()
    #expect(decoder.decode(bytes) == keys)
  }

  @Test func utf8SplitAcrossReadsWaitsForTheRest() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x73, 0xED, 0x95]) == [.character("s")])
    #expect(decoder.decode([0x9C, 0x21]) == [.character("한"), .character("!")])
  }
}
