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
            OptionKey.value("wait", .duration, help: "", default: "5"),
            OptionKey.value("mode", .choice(["a b"]), help: ""),
            OptionKey.flag("json", help: ""),
            OptionKey.flag("all", short: "h", help: ""),
            OptionKey.flag("Loud", help: ""),
          ],
          positionals: [
            PositionalSpec(name: "rest", help: "", isRepeating: true),
            PositionalSpec(name: "last", help: ""),
          ]),
        CommandSpec(name: "help", summary: ""),
        CommandSpec(name: "go", summary: ""),
      ],
      exitStatuses: [.init("0", ""), .init("143", ""), .init("141", "")])
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
        "the exit statuses are not in numeric order",
      ])
  }
}

/// The values completions suggest for the real table are ones its commands accept.
@Suite struct SuggestedValueTests {
  @Test func bufferSuggestionsParse() throws {
    let ticker = try #require(CommandTable.program.command(named: "ticker"))
    let buffer = try #require(ticker.options.first { $0.name == "buffer" })
    guard case .suggested(let words) = buffer.valueKind else {
      Issue.record("--buffer has no suggested values")
      return
    }
    for word in words {
      #expect((try? TickerBuffer.parse(word)) != nil, "\(word)")
    }
  }

  @Test func counterActionSuggestionsParse() throws {
    let counter = try #require(CommandTable.program.command(named: "counter"))
    let action = try #require(counter.positionals.first)
    guard case .suggested(let words) = action.kind else {
      Issue.record("<action> has no suggested values")
      return
    }
    for word in words {
      #expect((try? CounterAction.parse(word).get()) != nil, "\(word)")
    }
  }

  @Test func suggestionsMustBePlainWords() {
    let program = ProgramSpec(
      name: "x", version: "1", overview: "",
      commands: [
        CommandSpec(
          name: "go", summary: "", options: [OptionKey.value("mode", .suggested([]), help: "")],
          positionals: [PositionalSpec(name: "what", help: "", kind: .suggested(["a b"]))])
      ])
    #expect(
      program.problems() == [
        "'<what>' of 'go' needs plain words as choices",
        "'--mode' needs plain words as choices",
      ])
  }
}
