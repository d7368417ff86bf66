import Testing

@testable import LoadctlCommands

@Suite struct ParserErrorTests {
  /// The first line a user sees for each bad command line.
  @Test(arguments: [
    (["rn"], "unknown subcommand 'rn'. Did you mean 'run'?"),
    (["ru"], "unknown subcommand 'ru'. Did you mean 'run'?"),
    (["bogus"], "unknown subcommand 'bogus'"),
    (["bogus", "--help"], "unknown subcommand 'bogus'"),
    (["-5"], "unknown subcommand '-5'"),
    (["version"], "unknown subcommand 'version'. Did you mean '--version'?"),
    (["json"], "unknown subcommand 'json'. Did you mean '--json'?"),
    (
      ["completions", "bash", "--config", "x"],
      "option '--config' cannot be used with 'completions'"
    ),
    (["completions", "bash", "-q"], "option '-q' cannot be used with 'completions'"),
    (["completions", "--json=yes", "bash"], "option '--json' cannot be used with 'completions'"),
    (["--json", "completions", "fish"], "option '--json' cannot be used with 'completions'"),
    (["-c", "x", "completions", "fish"], "option '--config' cannot be used with 'completions'"),
    (["help", "--no-color"], "option '--no-color' cannot be used with 'help'"),
    (["-q", "help", "run"], "option '--quiet' cannot be used with 'help'"),
    (["help", "run", "--man"], "'--man' prints the manual of the whole program, not of 'run'"),
    (["run", "--man", "http://h"], "unknown option '--man'. Did you mean '--min'?"),
    (
      ["run", "--latncy", "1s", "http://h"], "unknown option '--latncy'. Did you mean '--latency'?"
    ),
    (["run", "--lat", "1s", "http://h"], "unknown option '--lat'. Did you mean '--latency'?"),
    (["run", "--hlep"], "unknown option '--hlep'. Did you mean '--help'?"),
    (["run", "--bogus", "http://h"], "unknown option '--bogus'"),
    (["run", "-x", "http://h"], "unknown option '-x'"),
    (
      ["run", "-latency", "1s", "http://h"], "unknown option '-latency'. Did you mean '--latency'?"
    ),
    (["tick", "--rate", "5"], "unknown option '--rate'"),
    (["--policy", "drop", "run", "http://h"], "option '--policy' must come after its subcommand"),
    (["-r", "5", "run", "http://h"], "option '-r' must come after its subcommand"),
    (["run", "--latency"], "missing value for '--latency'"),
    (["run", "--latency", "--json", "http://h"], "missing value for '--latency'"),
    (["run", "--latency", "--", "http://h"], "missing value for '--latency'"),
    (["run", "-l"], "missing value for '--latency'"),
    (["run", "-nr"], "missing value for '--rate'"),
    (["tick", "--speed", "-inf"], "invalid number '-inf' for '--speed' (must be finite)"),
    (["run", "--min", "-nan", "http://h"], "invalid number '-nan' for '--min' (must be finite)"),
    (["run", "--min", "-0x10", "http://h"], "invalid number '-0x10' for '--min'"),
    (["run", "--offset", "-inf", "http://h"], "invalid integer '-inf' for '--offset'"),
    (["run", "--min", "-x", "http://h"], "missing value for '--min'"),
    (
      ["run", "--latency", "-1s", "http://h"],
      "invalid duration '-1s' for '--latency' (use a number with a unit, at most 1000000000s: "
        + "250us, 300ms, 1.5s, 2m, 1h)"
    ),
    (
      ["run", "-l", "-.5s", "http://h"],
      "invalid duration '-.5s' for '--latency' (use a number with a unit, at most 1000000000s: "
        + "250us, 300ms, 1.5s, 2m, 1h)"
    ),
    (["run", "--rate", "-5x", "http://h"], "invalid integer '-5x' for '--rate'"),
    (["run", "-1s", "http://h"], "unknown option '-1s'"),
    (["run", "--json=yes", "http://h"], "option '--json' does not take a value"),
    (["run", "--dry-run=", "http://h"], "option '--dry-run' does not take a value"),
    (["run", "--help=yes"], "option '--help' does not take a value"),
    (
      ["run", "--latency", "3x", "http://h"],
      "invalid duration '3x' for '--latency' (use a number with a unit, at most 1000000000s: "
        + "250us, 300ms, 1.5s, 2m, 1h)"
    ),
    (
      ["run", "--latency=5", "http://h"],
      "invalid duration '5' for '--latency' (use a number with a unit, at most 1000000000s: "
        + "250us, 300ms, 1.5s, 2m, 1h)"
    ),
    (["run", "--rate", "0", "http://h"], "invalid value '0' for '--rate' (must be 1 or more)"),
    (["run", "--rate", "fast", "http://h"], "invalid integer 'fast' for '--rate'"),
    (["run", "--count=-1", "http://h"], "invalid value '-1' for '--count' (must be 0 or more)"),
    (["run", "--offset", "1.5", "http://h"], "invalid integer '1.5' for '--offset'"),
    (["run", "--min", "abc", "http://h"], "invalid number 'abc' for '--min'"),
    (["run", "--min", "inf", "http://h"], "invalid number 'inf' for '--min' (must be finite)"),
    (["run", "--min=nan", "http://h"], "invalid number 'nan' for '--min' (must be finite)"),
    (["run", "--min", "1e999", "http://h"], "invalid number '1e999' for '--min' (must be finite)"),
    (["run", "--min", "0x10", "http://h"], "invalid number '0x10' for '--min'"),
    (["run", "--min", "0x1p4", "http://h"], "invalid number '0x1p4' for '--min'"),
    (
      ["run", "--policy", "fifo", "http://h"],
      "invalid value 'fifo' for '--policy' (choose from drop, latest, queue, parallel)"
    ),
    (
      ["run", "localhost:8080"],
      "invalid URL 'localhost:8080' for '<url>' (use scheme://host, such as http://localhost:8080)"
    ),
    (
      ["run", "http://"],
      "invalid URL 'http://' for '<url>' (use scheme://host, such as http://localhost:8080)"
    ),
    (
      ["run", "http://h:99999"],
      "invalid URL 'http://h:99999' for '<url>' (use scheme://host, such as http://localhost:8080)"
    ),
    (
      ["run", "http:/u:S3CRET@h"],
      "invalid URL 'http:/<redacted>@h' for '<url>' (use scheme://host, such as "
        + "http://localhost:8080)"
    ),
    (["run", "http://a", "http:/u:S3CRET@b"], "unexpected argument 'http:/<redacted>@b'"),
    (["u:S3CRET@h"], "unknown subcommand '<redacted>@h'"),
    (["run"], "missing argument '<url>'"),
    (["run", "http://a", "http://b"], "unexpected argument 'http://b'"),
    (
      ["tick", "--input="],
      "empty path for '--input' (use a file path, or - for standard input)"
    ),
    (["completions"], "missing argument '<shell>'"),
    (
      ["completions", "tcsh"],
      "invalid value 'tcsh' for '<shell>' (choose from bash, zsh, fish)"
    ),
    (["help", "rn"], "unknown subcommand 'rn'. Did you mean 'run'?"),
    (["help", "run", "tick"], "unexpected argument 'tick'"),
    (["run", "--bogus", "--rate", "0", "http://h"], "unknown option '--bogus'"),
    (["run", "--rate", "5", "--rate", "x", "http://h"], "invalid integer 'x' for '--rate'"),
  ])
  func badCommandLinesAreUsageErrors(arguments: [String], message: String) {
    #expect(throws: UsageError.self) { try parseWithFixture(arguments) }
    do {
      _ = try parse(arguments, spec: CLIFixture.program)
    } catch {
      let firstLine = error.render(program: CLIFixture.program).split(separator: "\n").first
      #expect(firstLine.map(String.init) == "Error: \(message)")
      #expect(error.exitCode == 64)
    }
  }

  @Test func anErrorInASubcommandPointsAtItsHelp() {
    let error = #expect(throws: UsageError.self) {
      try parseWithFixture(["run", "--latency"])
    }
    #expect(error?.command == "run")
    #expect(
      error?.render(program: CLIFixture.program) == """
        Error: missing value for '--latency'
        Usage: loadctl run [options] <url>
        See 'loadctl run --help' for more information.
        """)
  }

  @Test func anErrorBeforeASubcommandPointsAtTheTopLevelHelp() {
    let error = #expect(throws: UsageError.self) { try parseWithFixture(["rn"]) }
    #expect(error?.command == nil)
    #expect(
      error?.render(program: CLIFixture.program) == """
        Error: unknown subcommand 'rn'. Did you mean 'run'?
        Usage: loadctl <subcommand> [options]
        See 'loadctl --help' for more information.
        """)
  }

  @Test func usageErrorsExitWithStatus64() {
    #expect(UsageError.exitCode == 64)
  }

  @Test(
    arguments: [
      ("--latncy", "--latency"), ("--lat", "--latency"), ("--polcy", "--policy"),
      ("--xyz", nil), ("--r", "--rate"),
    ] as [(String, String?)])
  func suggestionsPreferAUniquePrefixThenTheNearestName(typed: String, expected: String?) {
    let candidates = CLIFixture.run.options.map(\.longForm)
    #expect(suggestion(for: typed, among: candidates) == expected)
  }

  @Test func editDistanceCountsSingleCharacterEdits() {
    #expect(editDistance("kitten", "sitting") == 3)
    #expect(editDistance("", "abc") == 3)
    #expect(editDistance("same", "same") == 0)
  }
}
