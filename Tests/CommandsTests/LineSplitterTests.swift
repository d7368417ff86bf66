import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lines of `bytes` fed to one splitter in pieces cut at `cuts`.
private func split(_ bytes: [UInt8], cuts: [Int]) -> [RawLine] {
  var splitter = LineSplitter()
  var lines: [RawLine] = []
  var start = 0
  for cut in cuts + [bytes.count] where cut >= start {
    lines += splitter.feed(bytes[start..<cut])
    start = cut
  }
  return lines + splitter.finish()
}

@Suite struct LineSplitterTests {
  /// Every line kind: ASCII, `\r\n`, blank, non-ASCII UTF-8, invalid UTF-8, one byte too long,
  /// exactly the longest, and a last line without a newline.
  static let input: [UInt8] =
    Array("101\r\n\nprix 1€\n".utf8) + [0xFF, 0x41, 0x0A]
    + [UInt8](repeating: 0x31, count: LineSource.maxLineLength + 1) + [0x0A]
    + [UInt8](repeating: 0x32, count: LineSource.maxLineLength) + [0x0D, 0x0A] + Array("end".utf8)

  @Test func linesAreNumberedCheckedAndDecoded() {
    let lines = split(Self.input, cuts: [])
    #expect(lines.map(\.number) == Array(1...7))
    #expect(lines.map(\.text?.count) == [3, 0, 7, nil, nil, nil, 3])
    #expect(lines[2].text == "prix 1€")
    #expect(lines[3].problem == "not valid UTF-8")
    #expect(lines[4].problem == "line longer than \(LineSource.maxLineLength) bytes")
    // The longest line plus its `\r` is one byte too many, as it always was.
    #expect(lines[5].problem == "line longer than \(LineSource.maxLineLength) bytes")
    #expect(lines[6].text == "end")
  }

  /// A line cut by a chunk's end comes out as if it had been read whole, wherever the cut is.
  @Test(arguments: [1, 2, 4, 5, 11, 13, 17, 4000, 65_537, 65_550, 131_000, 131_090])
  func chunkBoundariesDoNotChangeTheLines(cut: Int) {
    let whole = split(Self.input, cuts: [])
    #expect(split(Self.input, cuts: [cut]) == whole)
    #expect(
      split(Self.input, cuts: stride(from: cut, to: Self.input.count, by: cut).map { $0 }) == whole)
  }
}

/// On virtual time a pipe is read whole before the run: past its limits the rest is refused as
/// one rejected line, instead of filling memory (`yes |`) or never ending (`/dev/zero`).
@Suite struct ReadAllTests {
  /// The lines `readAll` gives for `text` written into a pipe, with small limits.
  private static func readAll(_ text: String, maxLines: Int, maxBytes: Int) async -> [RawLine] {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
    #expect(written == bytes.count)
    close(ends[1])
    var lines: [RawLine] = []
    for await line in LineSource.readAll(
      fd: ends[0], closeWhenDone: true, maxLines: maxLines, maxBytes: maxBytes)
    {
      lines.append(line)
    }
    return lines
  }

  @Test func withinTheLimitsEveryLineIsGiven() async {
    let lines = await Self.readAll("a\nb\nc\n", maxLines: 3, maxBytes: 100)
    #expect(lines.map(\.text) == ["a", "b", "c"])
  }

  @Test func pastTheLineLimitTheRestIsOneRejectedLine() async {
    let lines = await Self.readAll("a\nb\nc\nd\ne\n", maxLines: 3, maxBytes: 100)
    #expect(lines.count == 4)
    #expect(lines.prefix(3).map(\.text) == ["a", "b", "c"])
    #expect(lines.last?.number == 4)
    #expect(lines.last?.problem?.hasPrefix("more input than 3 lines") == true)
  }

  @Test func pastTheByteLimitTheRestIsOneRejectedLine() async {
    let lines = await Self.readAll(
      String(repeating: "x", count: 5_000), maxLines: 10, maxBytes: 1_000)
    #expect(lines.count == 1)
    #expect(lines.last?.problem?.hasPrefix("more input than") == true)
  }
}

/// A UTF-8 byte-order mark at the start of the input is not part of the first line; elsewhere it
/// is text.
@Suite struct ByteOrderMarkTests {
  @Test func aMarkBeforeTheFirstLineIsDropped() {
    var splitter = LineSplitter()
    let lines = splitter.feed(ArraySlice([0xEF, 0xBB, 0xBF] + Array("load\n\u{FEFF}x\n".utf8)))
    #expect(lines.map(\.text) == ["load", "\u{FEFF}x"])
  }
}
