import Testing

@testable import LoadctlCommands

/// `search --type` with a long `--keystroke` is a usage error, not a rejected input line.
///
/// Found after capping durations at ``maxDuration``: `--type` becomes the lines `@0s s`,
/// `@KEYSTROKEs sw`, …, so `--type abc --keystroke 1000000000s` made the line `@2000000000s abc`,
/// which the cap rejects: "Error: input line 3: invalid time prefix", status 65, for a line the
/// user never wrote. (Before the cap, `--keystroke 9223372036854775807s` overflowed the clock.)
@Suite struct SearchKeystrokeRegressionTests {
  @Test(arguments: [
    (["--type", "abc", "--keystroke", "1000000000s"], false),
    (["--type", "abc", "--keystroke", "500000000s"], true),
    (["--type", "a", "--keystroke", "1000000000s"], true),
    (["--type", "abc", "--keystroke", "500000000.000000001s"], false),
  ])
  func theLastKeystrokeMustFitTheCap(arguments: [String], accepted: Bool) throws {
    let result = try parse(["search"] + arguments, spec: CommandTable.program)
    guard case .run(let invocation) = result else {
      Issue.record("expected a run, got \(result)")
      return
    }
    do throws(UsageError) {
      let queries = try SearchQueries(invocation, mode: invocation.modeWithoutTerminal)
      #expect(accepted, "accepted \(queries.source)")
    } catch {
      #expect(!accepted)
      #expect(
        error.message == "'--keystroke' times the length of '--type' must be at most 1000000000s")
    }
  }
}
