import Testing

@testable import LoadctlCommands

@Suite struct LineChannelTests {
  /// A reader that always stays a few lines ahead never lets the queue empty; memory must still
  /// stay bounded (it used to keep every line ever read: 98 MB at 2,000,000 lines).
  @Test func aReaderThatStaysAheadKeepsMemoryBounded() async {
    let channel = LineChannel(capacity: 8)
    var number = 0
    func line() -> RawLine {
      number += 1
      return RawLine(number: number, text: "+", problem: nil)
    }
    for _ in 0..<4 { _ = channel.push(line()) }
    var most = 0
    for _ in 0..<50_000 {
      _ = await channel.next()
      _ = channel.push(line())
      most = max(most, channel.storedLines)
    }
    #expect(most <= 2 * 1024 + 8, "stored up to \(most) lines")
    #expect(await channel.next()?.number == 50_001, "no line lost or reordered")
  }
}
