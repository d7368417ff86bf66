import LoadctlCore
import Testing

@testable import LoadctlCommands

/// Parses `loadctl ticker …` with the real command table.
private func invocation(_ arguments: [String]) throws -> Invocation {
  guard case .run(let invocation) = try parse(["ticker"] + arguments, spec: CommandTable.program)
  else { throw UsageError.invalidValue("not a run", command: nil) }
  return invocation
}

@Suite struct TickerOptionsTests {
  @Test func theTableIsSound() {
    #expect(CommandTable.program.problems() == [])
  }

  @Test func defaultsAreTheSeeds() throws {
    let settings = try #require(TickerCommand.randomSettings(try invocation([])))
    #expect(settings.prices.lowCents == 9000)
    #expect(settings.prices.highCents == 11000)
    #expect(settings.interval == .seconds(1))
    #expect(settings.seed < 1 << 53)
  }

  @Test func negativeBoundsAndASeedAreAccepted() throws {
    let settings = try #require(
      TickerCommand.randomSettings(
        try invocation(["--min", "-5", "--max", "-1.5", "--seed", "7", "--interval", "0"])))
    #expect(settings.prices.lowCents == -500)
    #expect(settings.prices.highCents == -150)
    #expect(settings.seed == 7)
    #expect(settings.interval == .zero)
  }

  @Test(arguments: [
    (["--min", "110", "--max", "90"], "'--min 110' and '--max 90': --min must be less than --max"),
    (["--max", "90"], "'--min 90' and '--max 90': --min must be less than --max"),
    (["--max", "1e13"], "'--min 90' and '--max 1e13': prices must be between -1e12 and 1e12"),
    (
      ["--min", "1.001", "--max", "1.019"],
      "'--min 1.001' and '--max 1.019': need at least two whole-cent prices between them"
    ),
    (
      ["--from", "-", "--seed", "3"],
      "'--seed' cannot be used with '--from' (it sets the random feed)"
    ),
    (
      ["--from", "-", "--interval", "1s"],
      "'--interval' cannot be used with '--from' (it sets the random feed)"
    ),
  ])
  func badCombinationsAreUsageErrors(arguments: [String], message: String) throws {
    let parsed = try invocation(arguments)
    #expect(throws: UsageError.invalidValue(message, command: "ticker")) {
      try TickerCommand.randomSettings(parsed)
    }
  }

  @Test func fromNeedsNoRandomSettings() throws {
    #expect(try TickerCommand.randomSettings(invocation(["--from", "prices.txt"])) == nil)
  }

  @Test(arguments: [["--count", "0"], ["--seed", "-1"], ["--interval", "-1s"], ["--min", "x"]])
  func valuesOfTheWrongKindAreRejectedByTheParser(arguments: [String]) {
    #expect(throws: UsageError.self) { try invocation(arguments) }
  }
}
