import Testing

@testable import LoadctlCommands

@Suite struct JSONValueTests {
  static let strings: [(String, String)] = [
    ("plain", #""plain""#),
    ("say \"hi\"", #""say \"hi\"""#),
    (#"C:\temp"#, #""C:\\temp""#),
    ("line\nnext", #""line\nnext""#),
    ("cr\rtab\t", #""cr\rtab\t""#),
    ("\u{0}\u{1}\u{8}\u{C}\u{1F}", #""\u0000\u0001\u0008\u000c\u001f""#),
    // DEL and C1 (which some terminals act on) are escaped too; U+00A0 on is written raw.
    ("\u{7F}", #""\u007f""#),
    ("\u{1B}]0;x\u{7}\u{9B}1m\u{85}\u{A0}", "\"\\u001b]0;x\\u0007\\u009b1m\\u0085\u{A0}\""),
    ("café → 日本 🚀", #""café → 日本 🚀""#),
    ("e\u{301}", "\"e\u{301}\""),
    ("ü\"日\n🚀\\é\u{1}", #""ü\"日\n🚀\\é\u0001""#),
    ("", #""""#),
  ]

  @Test(arguments: strings)
  func stringsAreEscapedAsRFC8259Requires(input: String, expected: String) {
    #expect(JSONValue.string(input).serialized == expected)
  }

  static let numbers: [(JSONValue, String)] = [
    (.int(0), "0"),
    (.int(-42), "-42"),
    (.int(Int.max), "9223372036854775807"),
    (.double(3), "3"),
    (.double(-0.0), "0"),
    (.double(101.27), "101.27"),
    (.double(0.1), "0.1"),
    (.double(-2.5), "-2.5"),
    (.double(1_002.5), "1002.5"),
    (.double(123_456_789_012_345), "123456789012345"),
    (.double(1e16), "1e+16"),
    (.double(1e-7), "1e-07"),
    (.double(.nan), "null"),
    (.double(.infinity), "null"),
    (.double(-.infinity), "null"),
  ]

  @Test(arguments: numbers)
  func numbersUseTheirShortestForm(value: JSONValue, expected: String) {
    #expect(value.serialized == expected)
  }

  /// Integers are written digit by digit: every width, both signs and both ends of `Int` must
  /// read as `String(value)` does.
  @Test func integersAreWrittenAsDescriptionWritesThem() {
    var values = [0, 9, 10, -9, -10, Int.max, Int.min, Int.min + 1]
    var power = 1
    for _ in 0..<18 {
      power *= 10
      values += [power - 1, power, power + 1, -(power - 1), -power]
    }
    var generator = SeededGenerator(seed: 7)
    values += (0..<1_000).map { _ in Int.random(in: .min ... .max, using: &generator) }
    for value in values {
      var bytes: [UInt8] = [UInt8(ascii: "x")]
      JSONValue.writeInt(value, to: &bytes)
      #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)", "\(value)")
    }
  }

  /// Integral doubles up to 2^53 are exact integers and must print without a `.0`.
  @Test(arguments: [(1e15, "1000000000000000"), (9_007_199_254_740_992, "9007199254740992")])
  func largeIntegralDoublesHaveNoFraction(value: Double, expected: String) {
    #expect(JSONValue.double(value).serialized == expected)
  }

  /// Whole thousandths (prices, `elapsed_ms`) take a shortcut: it must write what `description`
  /// does, for any of them.
  @Test(arguments: [1, 7, 99, 1_000, 123_456, 10_000_000_000, 999_999_999_999_999])
  func thousandthsAreWrittenAsDescriptionWritesThem(bound: Int) {
    var generator = SeededGenerator(seed: UInt64(bound))
    for _ in 0..<2_000 {
      let thousandths = Int(generator.next() % UInt64(bound + 1))
      for value in [Double(thousandths) / 1000, -Double(thousandths) / 1000] {
        let expected =
          value == value.rounded(.towardZero) ? String(Int(value)) : value.description
        #expect(JSONValue.double(value).serialized == expected, "\(thousandths) thousandths")
      }
    }
    // Near the shortcut's bound and off whole hundredths: the general form.
    for value in [999_999_999_999.999, 1_000_000_000_000.001, 0.0015, 0.0625, 1.0 / 3, 2.6755] {
      #expect(JSONValue.double(value).serialized == value.description)
    }
  }

  @Test func objectsKeepTheirKeyOrder() {
    let value: JSONValue = .object([
      ("seq", 1), ("elapsed_ms", 2.5), ("event", "loaded"), ("a", .null),
      ("nested", .object([("z", true), ("y", false)])), ("list", .array([1, "two", .array([])])),
    ])
    #expect(
      value.serialized
        == #"{"seq":1,"elapsed_ms":2.5,"event":"loaded","a":null,"#
        + #""nested":{"z":true,"y":false},"list":[1,"two",[]]}"#)
    #expect(value["event"] == "loaded")
    #expect(value["missing"] == nil)
    #expect(JSONValue.string("x")["x"] == nil)
  }

  @Test func keysAreEscapedLikeStrings() {
    let value: JSONValue = .object([("a\"b\n", .object([]))])
    #expect(value.serialized == #"{"a\"b\n":{}}"#)
  }

  @Test func writeAppendsToExistingText() {
    var out = "data: "
    JSONValue.array([.bool(true), .null]).write(to: &out)
    #expect(out == "data: [true,null]")
  }
}
