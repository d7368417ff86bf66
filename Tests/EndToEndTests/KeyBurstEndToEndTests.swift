import Foundation
import Testing

/// Keys that arrive in bursts or as escape sequences, at a real (pseudo-)terminal, which hands a
/// burst over in pieces of at most 4 KB.
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

  /// Arrow keys move the cursor (200 left arrows stop at the start) and Alt+x does nothing:
  /// neither types anything into the search box or ends the search; Esc pressed alone does.
  @Test func arrowsMoveTheCursorAndAltKeysTypeNothing() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["send", "ab" + Self.leftArrows(200)],
        ["send", "\u{1B}x"], ["send", "c"], ["wait", "typed \"cab\" (cursor 1)"],
        ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.output)")
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("typed \"abD"), "\(result.output)")
  }

  /// Alt with a non-ASCII key (Alt+é, Alt+한) is ignored as Alt+x is: it neither ends the search
  /// nor types anything.
  @Test func altWithANonASCIIKeyTypesNothingIntoTheSearchBox() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["send", "a"], ["wait", "typed \"a\""],
        ["send", "\u{1B}é"], ["send", "\u{1B}한"], ["send", "b"], ["wait", "typed \"ab\""],
        ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.error ?? "")\n\(result.output)")
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("typed \"a한"), "\(result.output)")
  }

  /// A paste that starts with `q` into the empty box types it.
  @Test func aPasteStartingWithQIsTyped() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["send", "queue"], ["wait", "typed \"queue\""],
        ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.error ?? "")\n\(result.output)")
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
  }

  /// A paste of 40,000 characters, which the terminal hands over in pieces of at most 4 KB, is
  /// one change of the search box (it was one per 256 bytes, 157, each printing the whole query
  /// so far). A terminal starved of CPU may pause longer than the 50 ms a paste's next piece is
  /// waited for, so a second change is tolerated.
  @Test func aPasteIsOneChangeOfTheSearchBox() async throws {
    let paste = String(repeating: "b", count: 40_000)
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["send", paste], ["wait", "typed \"\(paste)\""],
        ["send", "\u{1B}"],
      ], ["search", "--log", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.error ?? "")")
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
    let changes = result.output.components(separatedBy: "typed \"").count - 1
    #expect((1...2).contains(changes), "\(changes) changes")
  }
}
