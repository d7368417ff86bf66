import Foundation
import Testing

/// Keys that arrive in bursts or as escape sequences, at a real (pseudo-)terminal: loadctl reads
/// 256 bytes at a time, so a burst of arrow keys has reads that end inside a sequence.
@Suite(.processSlots) struct KeyBurstEndToEndTests {
  static func leftArrows(_ count: Int) -> String { String(repeating: "\u{1B}[D", count: count) }

  /// Arrow keys are ignored, however many arrive at once: the run goes on, and `+` after them
  /// still counts.
  @Test func aBurstOfArrowKeysDoesNotEndTheCounter() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "keys:"], ["send", Self.leftArrows(3000) + "+"], ["wait", "count: 0 → 1"],
        ["send", "q"],
      ],
      ["counter", "--no-color"])
    #expect(result.error == nil, "\(result.output)")
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
  }

  /// Neither arrow keys nor Alt+x type anything into the search box or end the search; Esc
  /// pressed alone still does.
  @Test func arrowsAndAltKeysTypeNothingIntoTheSearchBox() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["send", "ab" + Self.leftArrows(200)],
        ["send", "\u{1B}x"], ["send", "c"], ["wait", "typed \"abc\""], ["send", "\u{1B}"],
      ], ["search", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.output)")
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("typed \"abD"), "\(result.output)")
  }
}
