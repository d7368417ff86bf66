import Testing

@testable import LoadctlCommands

/// The run mode is decided once from the command line and the terminals; these are its rules.
@Suite struct RunModeTests {
  private let terminal = Terminals(stdin: true, stdout: true, stderr: true)

  private func mode(_ arguments: [String], _ terminals: Terminals) throws -> RunMode {
    guard case .run(let invocation) = try parse(["timer"] + arguments, spec: CommandTable.program)
    else { throw UsageError.invalidValue("not a run", command: nil) }
    return RunMode(invocation, terminals: terminals)
  }

  @Test func keysAreReadAtATerminalOnRealTime() throws {
    let mode = try mode([], terminal)
    #expect(mode.readsKeys && !mode.isVirtual && !mode.interactive)
    #expect(mode.showsSpinner)
  }

  @Test func noTerminalNoKeysAndNoSpinner() throws {
    let mode = try mode(["-i"], .none)
    #expect(!mode.readsKeys && mode.interactive)
    #expect(!mode.showsSpinner)
  }

  @Test(arguments: [["--no-input"], ["--clock", "virtual"]])
  func noInputOrVirtualTimeNeverReadKeys(arguments: [String]) throws {
    #expect(try !mode(arguments, terminal).readsKeys)
  }

  @Test func virtualTimeShowsNoSpinner() throws {
    let mode = try mode(["--clock", "virtual"], terminal)
    #expect(mode.isVirtual && !mode.showsSpinner)
  }

  @Test func theTimerReadsKeysOnlyWhenNothingElseEndsItOrWhenAsked() throws {
    let plain = try mode([], terminal)
    #expect(TimerRun.wantsKeys(tickLimit: nil, duration: nil, mode: plain))
    #expect(!TimerRun.wantsKeys(tickLimit: 3, duration: nil, mode: plain))
    #expect(!TimerRun.wantsKeys(tickLimit: nil, duration: .seconds(1), mode: plain))
    #expect(TimerRun.wantsKeys(tickLimit: 3, duration: nil, mode: try mode(["-i"], terminal)))
    #expect(!TimerRun.wantsKeys(tickLimit: nil, duration: nil, mode: try mode([], .none)))
  }
}
