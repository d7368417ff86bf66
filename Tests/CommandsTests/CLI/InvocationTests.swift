import LoadctlCore
import Testing

@testable import LoadctlCommands

@Suite struct InvocationTests {
  typealias RunOption = CLIFixture.RunOption
  typealias TickOption = CLIFixture.TickOption

  @Test func theCommandNameAndPositionalsComeFromTheCommandLine() throws {
    let parsed = try fixtureInvocation(["tick", "a", "--speed", "2", "b"])
    #expect(parsed?.command == "tick")
    #expect(parsed?.positionals == ["a", "b"])
    #expect(parsed?[TickOption.speed] == 2)
  }

  @Test func globalValueOptionsAreReadLikeCommandOptions() throws {
    let parsed = try fixtureInvocation(["--config", "settings.json", "tick"])
    #expect(parsed?[CLIFixture.config] == "settings.json")
    #expect(try fixtureInvocation(["tick"])?[CLIFixture.config] == nil)
  }

  @Test func aGivenValueAndADefaultBothArriveTyped() throws {
    let parsed = try #require(try fixtureInvocation(["run", "--latency", "1.5s", "http://h"]))
    let latency: Duration = parsed[RunOption.latency]
    let rate: Int = parsed[RunOption.rate]
    #expect(latency == .milliseconds(1500))
    #expect(rate == 10)
    #expect(parsed.isGiven(RunOption.latency))
    #expect(!parsed.isGiven(RunOption.rate))
    #expect(parsed.text(RunOption.latency) == "1.5s")
    #expect(parsed.text(RunOption.rate) == "10")
    #expect(parsed.text(RunOption.count) == nil)
  }

  @Test func aRepeatableOptionKeepsEveryValueInOrder() throws {
    let parsed = try #require(
      try fixtureInvocation(["run", "-H", "b: 2", "http://h", "--header=a: 1", "-H", "b: 2"]))
    let headers: [String] = parsed[RunOption.header]
    #expect(headers == ["b: 2", "a: 1", "b: 2"])
    #expect(parsed.isGiven(RunOption.header))
  }

  @Test func aChoiceArrivesAsItsEnumCase() throws {
    let parsed = try #require(try runInvocation(["go", "--mode", "fast"], spec: Modes.program))
    #expect(parsed[Modes.mode] == .fast)
    let defaulted = try #require(try runInvocation(["go"], spec: Modes.program))
    #expect(defaulted[Modes.mode] == .slow)
    #expect(throws: UsageError.self) { try parse(["go", "--mode", "Fast"], spec: Modes.program) }
  }

  @Test func eachValueAndEachDefaultIsConvertedOnceWhileParsing() throws {
    let counted = Counted()
    let parsed = try #require(
      try runInvocation(["go", "--many", "1", "--many", "2"], spec: counted.program))
    // Two given values and the default of `--one`, converted by the parser.
    #expect(counted.conversions.withLock { $0 } == 3)
    #expect(parsed[counted.many] == [1, 2])
    #expect(parsed[counted.one] == 7)
    #expect(parsed[counted.many] == [1, 2])
    #expect(counted.conversions.withLock { $0 } == 3)
  }

  @Test func aBadValueIsReportedByTheKeysConversion() {
    #expect(throws: UsageError.invalidValue("invalid integer 'x' for '--rate'", command: "run")) {
      try parse(["run", "--rate", "x", "http://h"], spec: CLIFixture.program)
    }
  }

  @Test func askingForAnOptionTheCommandDoesNotDeclareStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      if case .run(let invocation) = try? parse(["tick"], spec: CLIFixture.program) {
        _ = invocation[CLIFixture.RunOption.rate]
      }
    }
  }

  @Test func aDefaultThatDoesNotParseStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      let wait = OptionKey.value("wait", .duration, help: "", default: "5")
      let command = CommandSpec(name: "go", summary: "", options: [wait])
      let program = ProgramSpec(name: "x", version: "1", overview: "", commands: [command])
      _ = try? parse(["go"], spec: program)
    }
  }
}

/// The invocation `arguments` parse to with `spec`, or `nil` if they do not ask for a run.
private func runInvocation(_ arguments: [String], spec: ProgramSpec) throws -> Invocation? {
  guard case .run(let invocation) = try parse(arguments, spec: spec) else { return nil }
  return invocation
}

/// A table with one choice read as an enum.
private enum Modes {
  enum Mode: String, Sendable { case slow, fast }

  static let mode = OptionKey.value(
    "mode", .choice([Mode.slow, .fast]), help: "How fast.", default: "slow")
  static let program = ProgramSpec(
    name: "x", version: "1", overview: "",
    commands: [CommandSpec(name: "go", summary: "", options: [mode])])
}

/// A table whose integer options count how often their values are converted.
private struct Counted {
  let conversions = Locked(0)
  let one: OptionKey<Int>
  let many: OptionKey<[Int]>
  let program: ProgramSpec

  init() {
    let conversions = conversions
    let counting = ValueType<Int>(kind: .int) { text, name throws(ValueProblem) in
      conversions.withLock { $0 += 1 }
      return try ValueValidator.integer(text, kind: .int, name: name)
    }
    one = OptionKey.value("one", counting, help: "", default: "7")
    many = OptionKey.values("many", counting, help: "")
    program = ProgramSpec(
      name: "x", version: "1", overview: "",
      commands: [CommandSpec(name: "go", summary: "", options: [one, many])])
  }
}
