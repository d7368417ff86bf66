import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `profile --file -` reads standard input once.
///
/// Found by the bad-input corpus work: `echo '{"name":"Stdin"}' | loadctl profile --file -`
/// validated the profile by reading stdin at start, then read stdin again for the load, found it
/// empty and ended failed ("'-' is not valid JSON: unexpected end of input"). With `--input -`
/// as well, both would have read the same stream.
@Suite struct ProfileSourceRegressionTests {
  @Test func aProfileFromStandardInputIsReturnedByEveryLoad() async throws {
    let source = ProfileSource.file(
      path: "-", latency: .zero, preloaded: Profile(name: "Stdin"))
    let fetch = source.fetcher(clock: VirtualClock())
    #expect(try await fetch { _ in } == Profile(name: "Stdin"))
    #expect(try await fetch { _ in } == Profile(name: "Stdin"))
  }

  @Test func fileAndInputCannotBothReadStandardInput() throws {
    let result = try parse(
      ["profile", "--file", "-", "--input", "-"], spec: CommandTable.program)
    guard case .run(let invocation) = result else {
      Issue.record("expected a run, got \(result)")
      return
    }
    #expect(
      throws: UsageError.invalidValue(
        "'--file -' and '--input -' cannot both read standard input", command: "profile")
    ) {
      try ProfileSource(invocation, mode: invocation.modeWithoutTerminal, environment: [:])
    }
  }
}
