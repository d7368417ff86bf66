import Foundation
import Testing

/// With `--json`, a run that ends before its flow starts still tells scripts why, on stdout.
@Suite(.processSlots) struct ErrorEventTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let command: String
    let kind: String
    let status: Int32
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let cases: [Case] = [
    Case(
      arguments: ["profile", "--json", "--retries", "x"], command: "profile", kind: "usage",
      status: 64),
    Case(arguments: ["--json", "bogus"], command: "loadctl", kind: "usage", status: 64),
    Case(
      arguments: ["profile", "--json", "--file", "/nonexistent/me.json"], command: "profile",
      kind: "bad_input", status: 65),
    Case(
      arguments: ["counter", "--json", "zzz"], command: "counter", kind: "usage", status: 64),
    Case(
      arguments: ["ticker", "--json", "--from", "/nonexistent/prices"], command: "ticker",
      kind: "bad_input", status: 65),
    Case(
      arguments: ["search", "--json", "--input", "/nonexistent/queries"], command: "search",
      kind: "bad_input", status: 65),
    Case(
      arguments: ["timer", "--json", "--ticks", "0"], command: "timer", kind: "usage", status: 64),
  ]

  @Test(arguments: cases)
  func aJSONRunThatFailsEarlyPrintsOneErrorEvent(_ item: Case) async throws {
    let outcome = try await LoadctlProcess.run(item.arguments)
    #expect(outcome.termination == .exited(item.status))
    #expect(outcome.stdout.count == 1)
    let events = try JSONLines.parse(outcome.stdout)
    let event = try #require(events.first)
    #expect(event.event == "error")
    #expect(event.string("command") == item.command)
    #expect(event.string("kind") == item.kind)
    #expect(event.integer("exit_code") == Int(item.status))
    let message = try #require(event.string("message"))
    #expect(outcome.stderr.hasPrefix("Error: \(message)"), "stderr keeps its text")
    if SchemaValidator.isAvailable {
      #expect(
        try await SchemaValidator.failures(of: outcome.stdout, schema: SchemaValidator.errorSchema)
          == [])
      if item.command != "loadctl" {
        let schema = SchemaValidator.schema(for: item.command)
        #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: schema) == [])
      }
    }
  }

  /// `error` and `end` name the exit status the same way, `exit_code`, in every subcommand.
  @Test(arguments: [
    ["profile", "--clock", "virtual"], ["search", "--clock", "virtual", "swift"],
    ["ticker", "--clock", "virtual", "--count", "1"],
    ["timer", "--clock", "virtual", "--ticks", "1"],
    ["counter", "+"],
  ])
  func errorAndEndNameTheExitStatusAlike(arguments: [String]) async throws {
    let ended = try await LoadctlProcess.run(arguments + ["--json"])
    let bad = try await LoadctlProcess.run(arguments + ["--json", "--bogus-option"])
    let end = try #require(try JSONLines.parse(ended.stdout).last)
    let error = try #require(try JSONLines.parse(bad.stdout).first)
    #expect(end.event == "end" && error.event == "error")
    #expect(end.integer("exit_code") == Int(ended.termination.shellStatus))
    #expect(error.integer("exit_code") == Int(bad.termination.shellStatus))
    #expect(end.value(at: "exit_status") == nil && error.value(at: "exit_status") == nil)
  }

  @Test func withoutJSONStdoutStaysEmpty() async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--retries", "x"])
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout.isEmpty)
  }
}
