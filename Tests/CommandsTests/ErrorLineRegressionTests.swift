import Testing

@testable import LoadctlCommands

/// An `Error:` line stays one visible line whatever the user's text contains.
///
/// Found by the bad-input corpus: `loadctl $'prof\nile'` printed `Error: unknown subcommand
/// 'prof` and `ile'. Did you mean …` on two lines, and an input line holding `ESC [2J` sent the
/// escape sequence to the terminal inside `Error: input line 2: unknown action '…'`.
@Suite struct ErrorLineRegressionTests {
  @Test(arguments: [
    ("plain", "plain"),
    ("a\nb", #"a\nb"#),
    ("a\r\nb", #"a\r\nb"#),
    ("tab\there", #"tab\there"#),
    ("nul\0", #"nul\0"#),
    ("\u{1B}[2J", #"\u{1B}[2J"#),
    ("del\u{7F}", #"del\u{7F}"#),
    ("c1\u{9B}31m", #"c1\u{9B}31m"#),
    ("café ✓ 한글", "café ✓ 한글"),
    ("e\u{301}", "e\u{301}"),
  ])
  func controlCharactersAreEscaped(text: String, expected: String) {
    #expect(text.escapingControlCharacters == expected)
  }

  @Test func aNewlineInAnArgumentKeepsTheUsageErrorAtThreeLines() throws {
    #expect(throws: UsageError.self) { try parse(["prof\nile"], spec: CommandTable.program) }
    do throws(UsageError) {
      _ = try parse(["prof\nile"], spec: CommandTable.program)
    } catch {
      let lines = error.render(program: CommandTable.program).split(
        separator: "\n", omittingEmptySubsequences: false)
      #expect(lines.count == 3)
      #expect(lines.first == #"Error: unknown subcommand 'prof\nile'. Did you mean 'profile'?"#)
    }
  }

  @Test func anEscapeSequenceInAValueIsShownNotSent() throws {
    do throws(UsageError) {
      _ = try parse(["profile", "--latency", "\u{1B}[31m1s"], spec: CommandTable.program)
      Issue.record("an escape sequence parsed as a duration")
    } catch {
      let first = error.render(program: CommandTable.program).split(separator: "\n").first
      #expect(first?.contains("\u{1B}") == false)
      #expect(first?.hasPrefix(#"Error: invalid duration '\u{1B}[31m1s' for '--latency'"#) == true)
    }
  }
}
