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
    ("x", "unknown action 'x' (expected +, -, d or cancel; or inc, dec, delayed)"),
    ("++", "unknown action '++' (expected +, -, d or cancel; or inc, dec, delayed)"),
    (
      "incrementResponse",
      "'incrementResponse' is sent by loadctl itself, not by input (expected +, -, d or cancel; "
        + "or inc, dec, delayed)"
    ),
  ])
  func unknownWordsAreRejectedWithTheChoices(text: String, message: String) {
    #expect(throws: InputError(line: 0, message: message)) { try CounterAction.parse(text).get() }
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

  @Test func argumentsAreCheckedBeforeAnythingRuns() {
    #expect(CounterCommand.firstProblem(in: ["+", "+", "-", "delayed", "+1s d", "@2s +"]) == nil)
    #expect(
      CounterCommand.firstProblem(in: ["+", "plus", "x"])
        == "argument 2: unknown action 'plus' (expected +, -, d or cancel; or inc, dec, delayed)")
    #expect(
      CounterCommand.firstProblem(in: ["d", "+1s"])
        == "argument 2: nothing after the time prefix '+1s'")
    #expect(
      CounterCommand.firstProblem(in: ["+soon d"])?.hasPrefix(
        "argument 1: invalid time prefix '+soon'") == true)
  }
}
