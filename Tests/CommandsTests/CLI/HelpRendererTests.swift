import Testing

@testable import LoadctlCommands

@Suite struct HelpRendererTests {
  let wide = HelpRenderer(program: CLIFixture.program, width: 80)

  @Test func topLevelHelp() {
    SnapshotAssertion.check(
      wide.render(command: nil), matches: Snapshots.topLevelHelp, named: "topLevelHelp")
  }

  @Test func commandHelp() {
    SnapshotAssertion.check(
      wide.render(command: "run"), matches: Snapshots.runHelp, named: "runHelp")
  }

  @Test func builtInCommandHelp() {
    SnapshotAssertion.check(
      wide.render(command: "completions"), matches: Snapshots.completionsHelp,
      named: "completionsHelp")
  }

  @Test func narrowHelpWrapsWithAHangingIndent() {
    let narrow = HelpRenderer(program: CLIFixture.program, width: 40).render(command: "run")
    SnapshotAssertion.check(narrow, matches: Snapshots.runHelpNarrow, named: "runHelpNarrow")
    // Only the example is wider: command lines are never wrapped, so they stay copyable.
    for line in narrow.split(separator: "\n") where !line.hasPrefix("  loadctl ") {
      #expect(line.count <= 40, "\(line)")
    }
  }

  /// `replay` refuses the recorded run's options (`--clock`, `--deny`, …) and `--record`: its
  /// help does not offer them, and it still lists the globals it takes.
  @Test func replayHelpListsOnlyTheOptionsItTakes() {
    let help = HelpRenderer(program: CommandTable.program, width: 80).render(command: "replay")
    // The first spelling on each option line (`  -q, --quiet  …` gives `--quiet`).
    let listed = Set(
      help.split(separator: "\n").compactMap { line -> String? in
        let words = line.split(separator: " ")
        guard line.hasPrefix("  -"), let first = words.first else { return nil }
        return String(first.hasSuffix(",") ? words[1] : first)
      })
    #expect(
      listed == [
        "--check", "--until", "--json", "--no-color", "--quiet", "--trace", "--timeline", "--help",
      ], "\(help)")
  }

  /// loadctl's own top-level help: its exit statuses in numeric order, 74 naming every file a
  /// run writes, and what `--` does.
  @Test func theTopLevelHelpListsStatusesInOrderAndSaysWhatDoubleDashDoes() {
    let help = HelpRenderer(program: CommandTable.program, width: 1000).render(command: nil)
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
    let rows = lines.drop { $0 != "EXIT STATUS:" }.dropFirst()
    let codes = rows.compactMap { Int($0.split(separator: " ").first ?? "") }
    #expect(codes.count == CommandTable.program.exitStatuses.count)
    #expect(codes == codes.sorted(), "\(codes)")
    let ioError = rows.first { $0.hasPrefix("  74 ") }
    #expect(ioError?.contains("--trace") == true && ioError?.contains("--record") == true)
    let options = lines.drop { $0 != "OPTIONS:" }.prefix { !$0.isEmpty }
    #expect(options.contains { $0.hasPrefix("  --  ") && $0.contains("argument") }, "\(help)")
  }

  @Test func unknownCommandsGetTheTopLevelHelp() {
    #expect(wide.render(command: "nope") == wide.render(command: nil))
  }

  @Test func wrapKeepsLineBreaksAndIndentsContinuations() {
    let lines = TextWrapper.wrap(
      "one two three four five\nsix", width: 12, prefix: "> ", indent: 2)
    #expect(lines == ["> one two", "  three four", "  five", "  six"])
  }

  @Test func aWordLongerThanTheWidthGetsItsOwnLine() {
    let lines = TextWrapper.wrap("a extraordinarily b", width: 8)
    #expect(lines == ["a", "extraordinarily", "b"])
  }

  @Test func aLongLabelPutsItsDescriptionOnTheNextLine() {
    let lines = TextWrapper.row(
      label: "--a-very-long-option-name VALUE", text: "Does a thing.", width: 80)
    #expect(
      lines == [
        "  --a-very-long-option-name VALUE",
        String(repeating: " ", count: 26) + "Does a thing.",
      ])
  }

  @Test(
    arguments: [("100", 100), (nil, 80), ("abc", 80), ("0", 80), ("40", 40)] as [(String?, Int)])
  func widthComesFromColumns(columns: String?, expected: Int) {
    #expect(HelpRenderer.width(columns: columns) == expected)
  }
}
