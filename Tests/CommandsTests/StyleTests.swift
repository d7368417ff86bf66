import Testing

@testable import LoadctlCommands

@Suite struct StyleTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let terminal: Bool
    let flag: Bool
    let environment: [String: String]
    let enabled: Bool
    var testDescription: String { "terminal: \(terminal), --no-color: \(flag), \(environment)" }
  }

  static let cases: [Case] = [
    Case(terminal: true, flag: false, environment: [:], enabled: true),
    Case(terminal: false, flag: false, environment: [:], enabled: false),
    Case(terminal: true, flag: true, environment: [:], enabled: false),
    Case(terminal: true, flag: false, environment: ["NO_COLOR": "1"], enabled: false),
    Case(terminal: true, flag: false, environment: ["NO_COLOR": ""], enabled: true),
    Case(terminal: true, flag: false, environment: ["TERM": "dumb"], enabled: false),
    Case(terminal: false, flag: false, environment: ["FORCE_COLOR": "1"], enabled: true),
    Case(terminal: false, flag: false, environment: ["CLICOLOR_FORCE": "1"], enabled: true),
    Case(terminal: false, flag: false, environment: ["FORCE_COLOR": "0"], enabled: false),
    Case(terminal: false, flag: false, environment: ["FORCE_COLOR": ""], enabled: false),
    Case(
      terminal: true, flag: false, environment: ["TERM": "dumb", "FORCE_COLOR": "1"], enabled: true),
    Case(
      terminal: false, flag: false, environment: ["FORCE_COLOR": "1", "NO_COLOR": "1"],
      enabled: false),
    Case(terminal: false, flag: true, environment: ["CLICOLOR_FORCE": "1"], enabled: false),
  ]

  @Test(arguments: cases)
  func colourFollowsTheTerminalTheFlagsAndTheEnvironment(_ item: Case) {
    let style = Style.detect(
      isTerminal: item.terminal, noColorFlag: item.flag, environment: item.environment)
    #expect(style.enabled == item.enabled)
  }
}
