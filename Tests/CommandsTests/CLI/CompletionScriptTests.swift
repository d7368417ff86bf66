import Testing

@testable import LoadctlCommands

@Suite struct CompletionScriptTests {
  @Test func bashScript() {
    SnapshotAssertion.check(
      completionScript(shell: "bash", spec: CLIFixture.program) ?? "",
      matches: Snapshots.bashCompletion, named: "bashCompletion")
  }

  @Test func zshScript() {
    SnapshotAssertion.check(
      completionScript(shell: "zsh", spec: CLIFixture.program) ?? "",
      matches: Snapshots.zshCompletion, named: "zshCompletion")
  }

  @Test func fishScript() {
    SnapshotAssertion.check(
      completionScript(shell: "fish", spec: CLIFixture.program) ?? "",
      matches: Snapshots.fishCompletion, named: "fishCompletion")
  }

  @Test func otherShellsHaveNoScript() {
    #expect(completionScript(shell: "tcsh", spec: CLIFixture.program) == nil)
  }

  @Test(arguments: ProgramSpec.shells)
  func everyShellParsesAndGetsAScript(shell: String) throws {
    #expect(try parseWithFixture(["completions", shell]) == .completions(shell: shell))
    #expect(completionScript(shell: shell, spec: CLIFixture.program)?.hasSuffix("\n") == true)
  }
}
