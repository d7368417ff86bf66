import Testing

@testable import LoadctlCommands

@Suite struct InvocationTests {
  @Test func theCommandNameAndPositionalsComeFromTheCommandLine() throws {
    let parsed = try fixtureInvocation(["tick", "a", "--speed", "2", "b"])
    #expect(parsed?.command == "tick")
    #expect(parsed?.positionals == ["a", "b"])
    #expect(parsed?.double("speed") == 2)
  }

  @Test func globalValueOptionsAreReadLikeCommandOptions() throws {
    let parsed = try fixtureInvocation(["--config", "settings.json", "tick"])
    #expect(parsed?.string("config") == "settings.json")
    #expect(try fixtureInvocation(["tick"])?.string("config") == nil)
  }

  @Test func askingForAnOptionTheCommandDoesNotDeclareStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      if case .run(let invocation) = try? parse(["tick"], spec: CLIFixture.program) {
        _ = invocation.string("rate")
      }
    }
  }

  @Test func askingForAValueWithTheWrongTypeStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      if case .run(let invocation) = try? parse(["run", "http://h"], spec: CLIFixture.program) {
        _ = invocation.duration("rate")
      }
    }
  }

  @Test func aDefaultThatDoesNotParseStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      let command = CommandSpec(
        name: "go", summary: "", options: [.value("wait", .duration, help: "", default: "5")])
      let program = ProgramSpec(name: "x", version: "1", overview: "", commands: [command])
      if case .run(let invocation) = try? parse(["go"], spec: program) {
        _ = invocation.duration("wait")
      }
    }
  }
}
