import Foundation
import Testing

@testable import LoadctlCommands

/// The real command table: consistent, and the checked-in completions are what it generates.
@Suite struct CommandTableTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let files = ["bash": "loadctl.bash", "zsh": "_loadctl", "fish": "loadctl.fish"]

  @Test func tableHasNoProblems() {
    #expect(CommandTable.program.problems() == [])
  }

  /// `LOADCTL_RECORD=1 swift test --filter CommandTableTests` rewrites `completions/`.
  @Test(arguments: ["bash", "zsh", "fish"])
  func checkedInCompletionsAreGenerated(shell: String) throws {
    let generated = try #require(completionScript(shell: shell, spec: CommandTable.program))
    let file = Self.root.appendingPathComponent("completions/\(Self.files[shell] ?? shell)")
    if ProcessInfo.processInfo.environment["LOADCTL_RECORD"] == "1" {
      try generated.write(to: file, atomically: true, encoding: .utf8)
    }
    let checkedIn = try String(contentsOf: file, encoding: .utf8)
    #expect(checkedIn == generated, "run LOADCTL_RECORD=1 swift test to regenerate \(file.path)")
  }

  /// Completion in the real shells, with the real table.
  static let cases: [(line: String, expected: [String])] = [
    ("loadctl ", ["completions", "help"] + CommandTable.program.commands.map(\.name).sorted()),
    ("loadctl profile --la", ["--latency"]),
    ("loadctl --clock ", ["continuous", "virtual"]),
    ("loadctl completions ", ["bash", "fish", "zsh"]),
    // `replay` refuses the recorded run's options and `--record`: they are not offered after it.
    ("loadctl replay --c", ["--check"]),
    ("loadctl replay --no-", ["--no-color"]),
    (
      "loadctl replay --",
      ["--check", "--help", "--json", "--no-color", "--quiet", "--timeline", "--trace", "--until"]
    ),
    ("loadctl timer --cl", ["--clock"]),
  ]

  @Test(.enabled(if: ShellRunner.hasBashCompletion), arguments: cases)
  func bash(line: String, expected: [String]) async throws {
    let found = try await ShellCompletionTests.complete(bash: line, spec: CommandTable.program)
    #expect(found == expected.sorted())
  }

  @Test(.enabled(if: ShellRunner.hasZsh), arguments: cases)
  func zsh(line: String, expected: [String]) async throws {
    #expect(
      try await ShellCompletionTests.complete(zsh: line, spec: CommandTable.program)
        == expected.sorted())
  }

  @Test(.enabled(if: ShellRunner.hasFish), arguments: cases)
  func fish(line: String, expected: [String]) async throws {
    #expect(
      try await ShellCompletionTests.complete(fish: line, spec: CommandTable.program)
        == expected.sorted()
    )
  }
}
