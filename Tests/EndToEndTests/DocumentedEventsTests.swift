import Foundation
import Testing

/// The JSON events that `docs/events/*.md` shows are what the schemas accept, so the event
/// reference cannot drift from the contract (a `start` without `loadctl_version`, say).
@Suite(.processSlots) struct DocumentedEventsTests {
  static let commands = ["counter", "profile", "search", "ticker", "timer"]

  @Test(
    .enabled(if: SchemaValidator.isAvailable, "jsonschema is not installed"), arguments: commands)
  func everyShownEventMatchesTheSchema(command: String) async throws {
    let page = SchemaValidator.repositoryRoot().appendingPathComponent("docs/events/\(command).md")
    let lines = Self.eventLines(in: try String(contentsOf: page, encoding: .utf8))
    #expect(lines.count >= 3, "docs/events/\(command).md shows its events")
    let failures = try await SchemaValidator.failures(
      of: lines, schema: SchemaValidator.schema(for: command))
    #expect(failures == [], "docs/events/\(command).md")
  }

  @Test func eventLinesAreTakenFromCodeBlocksOnly() {
    let page = """
      {"seq":0} outside a block
      ```json
      {"seq":1}
      {"count":0}
      ```

      ```sh
      $ loadctl profile --json
      {"seq":2}
      ```
      """
    #expect(Self.eventLines(in: page) == [#"{"seq":1}"#, #"{"seq":2}"#])
  }

  /// The events shown in code blocks: lines that start with `{"seq":` (state snapshots and
  /// other JSON are not events).
  static func eventLines(in text: String) -> [String] {
    var lines: [String] = []
    var inBlock = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inBlock.toggle()
        continue
      }
      if inBlock, line.hasPrefix(#"{"seq":"#) { lines.append(String(line)) }
    }
    return lines
  }
}
