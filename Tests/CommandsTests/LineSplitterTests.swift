import Testing

@testable import LoadctlCommands

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
