import Testing

@testable import LoadctlCommands

@Suite struct ProgramSpecTests {
  @Test func theFixtureTableIsSound() {
    #expect(CLIFixture.program.problems() == [])
  }

  @Test func theStandardGlobalsAreSound() {
    let program = ProgramSpec(name: "x", version: "1", overview: "", commands: [])
    #expect(program.problems() == [])
    #expect(program.globalOptions.map(\.name) == ["json", "no-color", "quiet"])
  }

  @Test func mistakesInTheTableAreListed() {
    let broken = ProgramSpec(
      name: "x", version: "1", overview: "",
      commands: [
        CommandSpec(
          name: "go",
          summary: "",
          options: [
            .value("wait", .duration, help: "", default: "5"),
            .value("mode", .choice(["a b"]), help: ""),
            .flag("json", help: ""),
            .flag("all", short: "h", help: ""),
            .flag("Loud", help: ""),
          ],
          positionals: [
            PositionalSpec(name: "rest", help: "", isRepeating: true),
            PositionalSpec(name: "last", help: ""),
          ]),
        CommandSpec(name: "help", summary: ""),
        CommandSpec(name: "go", summary: ""),
      ])
    #expect(
      broken.problems() == [
        "'<rest>' of 'go' repeats but is not last",
        "subcommand 'help' is built in",
        "subcommand 'go' appears twice",
        "default of '--wait': invalid duration '5' for '--wait' (\(durationForms))",
        "'--mode' needs plain words as choices",
        "'-h' is declared twice or is built in, in 'go'",
        "'--Loud' is not a plain lowercase word",
        "'--json' is declared twice or is built in, in 'go'",
      ])
  }
}
