import Testing

@testable import LoadctlCommands

/// Errors in JSON point at the byte that is wrong.
///
/// Found by the bad-input corpus: `{"name":"Jos<0xE9>"}` (Latin-1) was reported as "invalid
/// UTF-8 in string at byte 14", the `}` after the string, because validation ran after the
/// closing quote had been consumed. The offset is now the first invalid byte.
@Suite struct JSONParserRegressionTests {
  static let cases: [(bytes: [UInt8], offset: Int)] = [
    (Array(#"{"name":"Jos"#.utf8) + [0xE9, 0x22, 0x7D], 12),
    ([0x22, 0xFF, 0x22], 1),
    (Array(#""ok \n "#.utf8) + [0xC3, 0x22], 7),
    (Array(#"["\u00e9", "é", ""#.utf8) + [0xE2, 0x82, 0x22, 0x5D], 18),
  ]

  @Test(arguments: cases)
  func invalidUTF8IsReportedWhereItStarts(bytes: [UInt8], offset: Int) {
    do {
      let value = try JSONParser.parse(bytes: bytes)
      Issue.record("parsed \(value.serialized)")
    } catch {
      #expect(error.reason == "invalid UTF-8 in string")
      #expect(error.offset == offset)
    }
  }

  @Test func validStringsAroundTheCheckStillParse() throws {
    let value = try JSONParser.parse(bytes: Array(#"{"name":"Jos\u00e9 é"}"#.utf8))
    #expect(value["name"] == .string("José é"))
  }

  /// With `uniqueKeys`, a key that appears twice in one object is refused where the second one
  /// starts, in a small object (searched) and a large one (a set); without it, both are kept.
  @Test(arguments: [2, 40])
  func aRepeatedKeyIsRefusedOnlyWhenKeysMustBeUnique(keys: Int) throws {
    let members = (0..<keys).map { #""k\#($0)":\#($0)"# } + [#""k1":"again""#]
    let text = "{" + members.joined(separator: ",") + "}"
    let offset = text.utf8.count - #""k1":"again"}"#.utf8.count
    do {
      let value = try JSONParser.parse(bytes: Array(text.utf8), uniqueKeys: true)
      Issue.record("parsed \(value.serialized)")
    } catch {
      #expect(error.reason == #"duplicate key "k1""#)
      #expect(error.offset == offset)
    }
    guard case .object(let pairs) = try JSONParser.parse(text) else {
      Issue.record("not an object")
      return
    }
    #expect(pairs.count == keys + 1)
    #expect(
      try JSONParser.parse(bytes: Array(#"{"a":{"b":1},"c":{"b":2}}"#.utf8), uniqueKeys: true)[
        "c"]?["b"] == .int(2))
  }
}
