import Foundation
import Testing

@testable import LoadctlCommands

/// Drives bash, zsh and fish with the fixture's completion scripts, as a user pressing Tab.
@Suite struct ShellCompletionTests {
  /// A command line typed up to the cursor, and the candidates every shell should offer.
  /// `{dir}` stands for a directory holding `ticks-1.txt`, `ticks-2.txt` and `two words.txt`.
  static let cases: [(line: String, expected: [String])] = [
    ("loadctl ti", ["tick"]),
    ("loadctl ", ["completions", "help", "run", "tick"]),
    ("loadctl --", ["--config", "--help", "--json", "--no-color", "--quiet", "--version"]),
    ("loadctl run --po", ["--policy"]),
    ("loadctl run --policy ", ["drop", "latest", "parallel", "queue"]),
    ("loadctl run --policy=la", ["latest"]),
    ("loadctl -c x.json run --po", ["--policy"]),
    ("loadctl --json run --rate ", []),
    (
      "loadctl tick --",
      [
        "--config", "--help", "--input", "--json", "--no-color", "--quiet", "--speed",
        "--window",
      ]
    ),
    ("loadctl tick --input {dir}/ticks-", ["ticks-1.txt", "ticks-2.txt"]),
    ("loadctl tick --input {dir}/two", ["two words.txt"]),
    ("loadctl tick --window ", ["all", "last:10"]),
    ("loadctl tick --window la", ["last:10"]),
    ("loadctl tick ", ["down", "up"]),
    ("loadctl tick up d", ["down"]),
    ("loadctl help r", ["run"]),
    ("loadctl completions ", ["bash", "fish", "zsh"]),
    ("loadctl completions --", ["--help"]),
    ("loadctl help --", ["--help", "--man"]),
  ]

  @Test(
    .enabled(if: ShellRunner.hasBashCompletion, "bash or bash-completion is not installed"),
    arguments: cases)
  func bash(line: String, expected: [String]) async throws {
    for withBashCompletion in [true, false] {
      let found = try await Self.complete(
        bash: line, spec: CLIFixture.program, withBashCompletion: withBashCompletion)
      #expect(found == expected, "bash-completion: \(withBashCompletion)")
    }
  }

  /// What bash offers for `line` (with or without the bash-completion package loaded).
  static func complete(bash line: String, spec: ProgramSpec, withBashCompletion: Bool = true)
    async throws -> [String]
  {
    let setup = try Setup(shell: "bash", line: line, spec: spec)
    defer { try? FileManager.default.removeItem(at: setup.directory) }
    let harness = """
      \(withBashCompletion ? "source \(ShellRunner.bashCompletionScript)" : "")
      source "$1"
      shift
      COMP_WORDS=("$@")
      COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMP_LINE="${COMP_WORDS[*]}"
      COMP_POINT=${#COMP_LINE}
      _loadctl loadctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let (status, output) = try await ShellRunner.run(
      "/usr/bin/env", ["bash", "-c", harness, "bash", setup.script] + Self.bashWords(setup.line))
    #expect(status == 0)
    return Self.candidates(output)
  }

  @Test(.enabled(if: ShellRunner.hasZsh, "zsh is not installed"), arguments: cases)
  func zsh(line: String, expected: [String]) async throws {
    #expect(try await Self.complete(zsh: line, spec: CLIFixture.program) == expected)
  }

  /// What zsh offers for `line`.
  static func complete(zsh line: String, spec: ProgramSpec) async throws -> [String] {
    let setup = try Setup(shell: "zsh", line: line, spec: spec)
    defer { try? FileManager.default.removeItem(at: setup.directory) }
    let captured = setup.directory.appendingPathComponent("captured.txt").path
    // An interactive zsh in a pseudo-terminal completes the line; compadd is wrapped so
    // that every match it adds is also written to a file, and a marker printed after the
    // completion tells the driver it is done.
    let harness = #"""
      zmodload zsh/zpty || exit 3
      zpty shell zsh -f -i
      zpty -w shell "PS1=''; RPROMPT=''"
      zpty -w shell "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
      zpty -w shell "compadd() {
        if (( \${@[(I)-(O|A|D)]} )); then builtin compadd \"\$@\"; return; fi
        local -a found; builtin compadd -O found \"\$@\"
        print -rl -- \$found >> ${(q)2}
        builtin compadd \"\$@\"
      }"
      zpty -w shell "_capture_done() { print -n 'CAPTURE''DONE' }; comppostfuncs=(_capture_done)"
      zpty -w shell "bindkey '^I' complete-word"
      zpty -w -n shell "$3"$'\t'
      zpty -r shell line '*CAPTUREDONE*' || exit 4
      zpty -d shell
      """#
    let (status, _) = try await ShellRunner.run(
      "/usr/bin/env",
      ["zsh", "-f", "-c", harness, "zsh", setup.directory.path, captured, setup.line])
    #expect(status == 0)
    let output = (try? String(contentsOfFile: captured, encoding: .utf8)) ?? ""
    // _files adds file names quoted for the command line (`two\ words.txt`).
    return Self.candidates(output.replacing("\\ ", with: " "))
  }

  @Test(.enabled(if: ShellRunner.hasFish, "fish is not installed"), arguments: cases)
  func fish(line: String, expected: [String]) async throws {
    #expect(try await Self.complete(fish: line, spec: CLIFixture.program) == expected)
  }

  /// What fish offers for `line`.
  static func complete(fish line: String, spec: ProgramSpec) async throws -> [String] {
    let setup = try Setup(shell: "fish", line: line, spec: spec)
    defer { try? FileManager.default.removeItem(at: setup.directory) }
    let (status, output) = try await ShellRunner.run(
      "/usr/bin/env",
      [
        "fish", "--no-config", "-c", "source $argv[1]; complete -C$argv[2]", setup.script,
        setup.line,
      ]
    )
    #expect(status == 0)
    let names = output.split(separator: "\n").map { $0.prefix { $0 != "\t" } }
    return Self.candidates(names.joined(separator: "\n"))
  }

  /// The candidates in a shell's output, reduced to what all three shells agree on: the
  /// value after `--option=` and the file name after its directory, sorted and unique.
  static func candidates(_ output: String) -> [String] {
    let names = output.split(separator: "\n").map { candidate in
      String(candidate.split(separator: "=").last ?? candidate).split(separator: "/").last
        .map(String.init) ?? ""
    }
    return Set(names.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }).sorted()
  }

  /// `COMP_WORDS` as bash splits the line: at spaces, and around `=` (in the default
  /// `COMP_WORDBREAKS`); a trailing space starts an empty word.
  static func bashWords(_ line: String) -> [String] {
    line.split(separator: " ", omittingEmptySubsequences: false).flatMap { word in
      guard word.hasPrefix("-"), let equals = word.firstIndex(of: "=") else {
        return [String(word)]
      }
      return [String(word[..<equals]), "=", String(word[word.index(after: equals)...])]
    }
  }

  /// A directory with the script for one shell and three files to complete, and the line with
  /// `{dir}` filled in.
  struct Setup {
    let directory: URL
    let script: String
    let line: String

    init(shell: String, line: String, spec: ProgramSpec) throws {
      directory = try ShellRunner.temporaryDirectory()
      let names = ["bash": "loadctl.bash", "zsh": "_loadctl", "fish": "loadctl.fish"]
      let script = directory.appendingPathComponent(names[shell] ?? shell)
      try (completionScript(shell: shell, spec: spec) ?? "").write(
        to: script, atomically: true, encoding: .utf8)
      for file in ["ticks-1.txt", "ticks-2.txt", "two words.txt"] {
        try "".write(
          to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
      }
      self.script = script.path
      self.line = line.replacing("{dir}", with: directory.path)
    }
  }
}
