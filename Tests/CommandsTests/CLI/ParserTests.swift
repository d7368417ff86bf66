import Testing

@testable import LoadctlCommands

/// Parses `arguments` against the fixture, failing the test on a usage error.
func parseWithFixture(_ arguments: [String]) throws -> ParseResult {
  try parse(arguments, spec: CLIFixture.program)
}

/// The invocation `arguments` parse to, or `nil` (with a recorded issue) if they do not.
func fixtureInvocation(
  _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
) throws -> Invocation? {
  let result = try parseWithFixture(arguments)
  guard case .run(let invocation) = result else {
    Issue.record("expected .run, got \(result)", sourceLocation: sourceLocation)
    return nil
  }
  return invocation
}

@Suite struct ParserTests {
  typealias RunOption = CLIFixture.RunOption
  typealias TickOption = CLIFixture.TickOption

  @Test func noArgumentsShowTopLevelHelp() throws {
    #expect(try parseWithFixture([]) == .help(command: nil))
  }

  @Test(
    arguments: [
      (["-h"], nil),
      (["--help"], nil),
      (["help"], nil),
      (["-q", "--help"], nil),
      (["run", "-h"], "run"),
      (["help", "run"], "run"),
      (["run", "--rate", "5", "--help"], "run"),
      (["run", "--bogus", "--rate", "0", "--help"], "run"),
      (["run", "-nh"], "run"),
      (["--json", "tick", "a", "b", "-h"], "tick"),
      (["help", "completions"], "completions"),
      (["completions", "--help"], "completions"),
      (["help", "help"], "help"),
    ] as [([String], String?)])
  func helpIsRecognisedAnywhere(arguments: [String], command: String?) throws {
    #expect(try parseWithFixture(arguments) == .help(command: command))
  }

  @Test func helpAfterDoubleDashIsAPositional() throws {
    let parsed = try fixtureInvocation(["tick", "--", "--help", "-h"])
    #expect(parsed?.positionals == ["--help", "-h"])
  }

  @Test func versionIsRecognisedBeforeOrAfterTheSubcommand() throws {
    #expect(try parseWithFixture(["--version"]) == .version(json: false))
    #expect(try parseWithFixture(["run", "--version"]) == .version(json: false))
    #expect(try parseWithFixture(["--version", "--json"]) == .version(json: true))
    #expect(try parseWithFixture(["--json", "run", "--version"]) == .version(json: true))
    #expect(try parseWithFixture(["--version", "--", "--json"]) == .version(json: false))
    #expect(try parseWithFixture(["--version", "--help"]) == .help(command: nil))
  }

  @Test func completionsTakeAShell() throws {
    #expect(try parseWithFixture(["completions", "zsh"]) == .completions(shell: "zsh"))
  }

  @Test(arguments: [["--json"], ["-q", "--no-color"], ["--config", "x.json"], ["--json", "--"]])
  func onlyGlobalOptionsShowTopLevelHelp(arguments: [String]) throws {
    #expect(try parseWithFixture(arguments) == .help(command: nil))
  }

  @Test func helpManAsksForTheManualPage() throws {
    #expect(try parseWithFixture(["help", "--man"]) == .manual)
    #expect(try parseWithFixture(["help", "--man", "--help"]) == .help(command: "help"))
    #expect(
      try parseWithFixture(["completions", "bash", "--json", "-h"]) == .help(command: "completions")
    )
  }

  @Test(arguments: [
    ["run", "--rate", "5", "http://h"],
    ["run", "--rate=5", "http://h"],
    ["run", "-r", "5", "http://h"],
    ["run", "http://h", "--rate", "5"],
  ])
  func valueFormsAreEquivalent(arguments: [String]) throws {
    let parsed = try fixtureInvocation(arguments)
    #expect(parsed?[RunOption.rate] == 5)
    #expect(parsed?.positionals == ["http://h"])
    #expect(parsed?.command == "run")
  }

  @Test func clusteredShortFlagsMayEndWithAValueOption() throws {
    let parsed = try fixtureInvocation(["run", "-nqr", "7", "http://h"])
    #expect(parsed?[RunOption.dryRun] == true)
    #expect(parsed?.quiet == true)
    #expect(parsed?[RunOption.rate] == 7)
  }

  @Test func negativeNumbersAreValues() throws {
    let spaced = try fixtureInvocation(["run", "--offset", "-5", "--min", "-5.5", "http://h"])
    #expect(spaced?[RunOption.offset] == -5)
    #expect(spaced?[RunOption.min] == -5.5)
    let joined = try fixtureInvocation(["run", "--offset=-3", "--min=-.25", "http://h"])
    #expect(joined?[RunOption.offset] == -3)
    #expect(joined?[RunOption.min] == -0.25)
    let positional = try fixtureInvocation(["tick", "-5", "-1.5"])
    #expect(positional?.positionals == ["-5", "-1.5"])
  }

  @Test func doubleDashEndsOptions() throws {
    let parsed = try fixtureInvocation(["tick", "--input", "-", "--", "-q", "--json", "--"])
    #expect(parsed?[TickOption.input] == "-")
    #expect(parsed?.positionals == ["-q", "--json", "--"])
    #expect(parsed?.quiet == false)
    #expect(parsed?.json == false)
  }

  @Test func globalOptionsGoBeforeOrAfterTheSubcommand() throws {
    let parsed = try fixtureInvocation(["--json", "-q", "run", "http://h", "--no-color"])
    #expect(parsed?.json == true)
    #expect(parsed?.quiet == true)
    #expect(parsed?.noColor == true)
    let none = try fixtureInvocation(["run", "http://h"])
    #expect(none?.json == false)
    #expect(none?.quiet == false)
    #expect(none?.noColor == false)
  }

  @Test func theLastValueOfANonRepeatableOptionWins() throws {
    let parsed = try fixtureInvocation(["run", "--rate", "5", "-r", "9", "--rate=7", "http://h"])
    #expect(parsed?[RunOption.rate] == 7)
    #expect(parsed?.text(RunOption.rate) == "7")
  }

  @Test func repeatableOptionsKeepEveryValueInOrder() throws {
    let parsed = try fixtureInvocation([
      "run", "-H", "a: 1", "--header=b: 2", "http://h", "-H", "c",
    ])
    #expect(parsed?[RunOption.header] == ["a: 1", "b: 2", "c"])
    #expect(parsed?.text(RunOption.header) == "c")
  }

  @Test func optionsFallBackToTheTableDefaults() throws {
    let parsed = try fixtureInvocation(["run", "http://h"])
    #expect(parsed?[RunOption.rate] == 10)
    #expect(parsed?[RunOption.latency] == .milliseconds(300))
    #expect(parsed?[RunOption.policy] == "drop")
    #expect(parsed?[RunOption.count] == nil)
    #expect(parsed?[RunOption.min] == nil)
    #expect(parsed?[RunOption.header] == [])
    #expect(parsed?.isGiven(RunOption.rate) == false)
    #expect(parsed?[RunOption.dryRun] == false)
  }

  @Test func optionsAreReadAsParsedValues() throws {
    let parsed = try fixtureInvocation([
      "run", "--latency", "1.5s", "--policy", "queue", "--count", "0", "--min", "2e3",
      "https://example.com:8443/path?q=1",
    ])
    #expect(parsed?[RunOption.latency] == .milliseconds(1500))
    #expect(parsed?[RunOption.policy] == "queue")
    #expect(parsed?[RunOption.count] == 0)
    #expect(parsed?[RunOption.min] == 2000)
    #expect(parsed?.isGiven(RunOption.latency) == true)
    #expect(parsed?.positionals == ["https://example.com:8443/path?q=1"])
  }

  @Test func optionalRepeatingPositionalsTakeZeroOrMore() throws {
    #expect(try fixtureInvocation(["tick"])?.positionals == [])
    #expect(try fixtureInvocation(["tick", "a", "b", "c"])?.positionals == ["a", "b", "c"])
  }

  @Test func aLoneDashIsAValue() throws {
    #expect(try fixtureInvocation(["tick", "-i", "-"])?[TickOption.input] == "-")
    #expect(try fixtureInvocation(["tick", "-"])?.positionals == ["-"])
  }

  @Test(arguments: [
    "http://localhost:8080", "https://example.com", "http://[::1]:80/x", "grpc://user@host:1",
    "http://h?x", "ws://10.0.0.1#frag",
  ])
  func urlsWithASchemeAndHostAreAccepted(url: String) throws {
    #expect(try fixtureInvocation(["run", url])?.positionals == [url])
  }
}
