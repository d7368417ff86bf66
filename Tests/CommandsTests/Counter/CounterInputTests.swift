import LoadctlCore
import Testing

@testable import LoadctlCommands

@Suite struct CounterInputTests {
  @Test(arguments: [
    ("+", CounterAction.increment), ("inc", .increment), ("increment", .increment),
    ("INC", .increment), ("-", .decrement), ("dec", .decrement), ("decrement", .decrement),
    ("d", .delayedIncrement), ("delayed", .delayedIncrement), ("D", .delayedIncrement),
    ("delayed_increment", .delayedIncrement), ("delayedIncrement", .delayedIncrement),
    ("c", .cancel), ("cancel", .cancel),
  ])
  func everySpellingParses(text: String, action: CounterAction) throws {
    #expect(try CounterAction.parse(text).get() == action)
  }

  @Test(arguments: [
    ("x", "unknown action 'x' (expected +, -, d or c; or inc, dec, delayed, cancel)"),
    ("++", "unknown action '++' (expected +, -, d or c; or inc, dec, delayed, cancel)"),
    (
      "incrementResponse",
      "'incrementResponse' is sent by loadctl itself, not by input (expected +, -, d or c; "
        + "or inc, dec, delayed, cancel)"
    ),
  ])
  func unknownWordsAreRejectedWithTheChoices(text: String, message: String) {
    #expect(throws: LineProblem(message)) { try CounterAction.parse(text).get() }
  }

  @Test func aLonePlusIsAnActionNotATimingPrefix() throws {
    #expect(try InputLine.parse("+", number: 1) == InputLine(number: 1, timing: .now, body: "+"))
    #expect(try InputLine.parse("  +  ", number: 2)?.body == "+")
    #expect(
      try InputLine.parse("+300ms +", number: 3)
        == InputLine(number: 3, timing: .after(.milliseconds(300)), body: "+"))
    #expect(try InputLine.parse("@1s -", number: 4)?.timing == .at(.seconds(1)))
    #expect(throws: InputError.self) { try InputLine.parse("+ +", number: 5) }
  }

  @Test func argumentsAreParsedOnceBeforeAnythingRuns() throws {
    let script = try TimedAction.parse(
      ["+", "+", "-", "delayed", "+1s d", "@2s +", "# a comment"], as: CounterAction.parse)
    #expect(
      script.map(\.action) == [
        .increment, .increment, .decrement, .delayedIncrement, .delayedIncrement, .increment,
      ])
    #expect(script.map(\.timing)[4...] == [.after(.seconds(1)), .at(.seconds(2))])
    #expect(
      problem(in: ["+", "plus", "x"])
        == InputError(
          line: 2,
          message: "unknown action 'plus' (expected +, -, d or c; or inc, dec, delayed, cancel)"))
    #expect(problem(in: ["d", "+1s"])?.message == "nothing after the time prefix '+1s'")
    #expect(problem(in: ["+soon d"])?.line == 1)
    #expect(problem(in: ["+soon d"])?.message.hasPrefix("invalid time prefix '+soon'") == true)
  }

  private func problem(in arguments: [String]) -> InputError? {
    do throws(InputError) {
      _ = try TimedAction.parse(arguments, as: CounterAction.parse)
      return nil
    } catch {
      return error
    }
  }
}
