import Foundation
import Testing

@testable import LoadctlCommands

/// The manual page: its layout, its escaping, the checked-in `docs/loadctl.1`, and that groff
/// formats it without a warning.
@Suite struct ManPageTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let checkedIn = root.appendingPathComponent("docs/loadctl.1")

  @Test func fixturePage() {
    SnapshotAssertion.check(
      ManPage(program: CLIFixture.program).text, matches: Snapshots.fixtureManPage,
      named: "fixtureManPage")
  }

  /// `LOADCTL_RECORD=1 swift test --filter ManPageTests` rewrites `docs/loadctl.1`.
  @Test func checkedInPageIsGenerated() throws {
    let generated = ManPage(program: CommandTable.program).text
    if SnapshotAssertion.isRecording {
      try generated.write(to: Self.checkedIn, atomically: true, encoding: .utf8)
    }
    let checkedIn = try String(contentsOf: Self.checkedIn, encoding: .utf8)
    #expect(
      checkedIn == generated, "run LOADCTL_RECORD=1 swift test to regenerate docs/loadctl.1")
  }

  @Test(arguments: [
    ("a-b", #"a\-b"#),
    (#"C:\path"#, #"C:\epath"#),
    ("x → y", #"x \[u2192] y"#),
    ("·", #"\[u00B7]"#),
    ("😀", #"\[u1F600]"#),
  ])
  func specialCharactersAreEscaped(text: String, expected: String) {
    #expect(ManPage.escaped(text) == expected)
  }

  @Test(arguments: [(".end", #"\&.end"#), ("'quoted'", #"\&'quoted'"#), ("  a.", "a.")])
  func aLineNeverStartsARequest(text: String, expected: String) {
    #expect(ManPage.textLine(text) == expected)
  }

  @Test func charactersBeyondASCIIGetAStandInForDevicesWithoutThem() {
    let page = ManPage(program: CommandTable.program).text
    #expect(page.contains(#".if !c\[u2588] .char \[u2588] \[bu]"#))
    #expect(page.split(separator: "\n").first?.hasPrefix(#".\""#) == true)
  }

  @Test func everySubcommandHasASection() {
    let page = ManPage(program: CommandTable.program).text
    for command in CommandTable.program.allCommands {
      #expect(page.contains("\n.SS \(command.name)\n"), "\(command.name)")
    }
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SUBCOMMANDS", "ENVIRONMENT"] {
      #expect(page.contains("\n.SH \(section)\n"), "\(section)")
    }
    #expect(page.contains("\n.SH \"EXIT STATUS\"\n"))
    #expect(page.contains("\n.SH \"SEE ALSO\"\n"))
  }

  /// `replay` refuses some global options (the recorded run's, and `--record`): its section
  /// names them as refused, and not among the global options that apply.
  @Test func replaySectionSaysWhichGlobalOptionsItRefuses() throws {
    let page = ManPage(program: CommandTable.program).text
    let start = try #require(page.range(of: "\n.SS replay\n"))
    let section = page[start.upperBound...].split(separator: "\n.SS ", maxSplits: 1).first ?? ""
    let sentence = try #require(
      section.split(separator: "\n").first { $0.hasPrefix("Of the global options") },
      "\(section)")
    let parts = sentence.split(separator: "; ", maxSplits: 1)
    try #require(parts.count == 2, "\(sentence)")
    let replay = try #require(CommandTable.program.command(named: "replay"))
    #expect(!replay.refusedGlobalOptions.isEmpty)
    for option in CommandTable.program.globalOptions {
      let name = "\\fB" + ManPage.escaped(option.longForm) + "\\fR"
      let refused = replay.refusedGlobalOptions.contains(option.name)
      #expect(parts[0].contains(name) == !refused, "\(option.longForm): \(sentence)")
      #expect(parts[1].contains(name) == refused, "\(option.longForm): \(sentence)")
    }
  }

  /// `groff -man -ww -z` (and `-mandoc`) must print nothing: no warning of any kind.
  @Test(
    .enabled(
      if: ShellRunner.which("groff") != nil, "groff is not installed (apt-get install groff)"),
    arguments: ["-man", "-mandoc"])
  func groffFormatsItWithoutWarnings(macros: String) async throws {
    let directory = try ShellRunner.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let fixture = directory.appendingPathComponent("fixture.1")
    try ManPage(program: CLIFixture.program).text.write(
      to: fixture, atomically: true, encoding: .utf8)
    for page in [Self.checkedIn.path, fixture.path] {
      let (status, output) = try await ShellRunner.run(
        "/usr/bin/env", ["sh", "-c", "groff \(macros) -ww -z \"$1\" 2>&1", "sh", page])
      #expect(status == 0, "\(page)")
      #expect(output == "", "\(page)")
    }
  }
}
