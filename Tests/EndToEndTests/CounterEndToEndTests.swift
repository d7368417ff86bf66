import Foundation
import Testing

/// The schema `loadctl counter --json` is documented by, found from this file's path
/// (`Tests/EndToEndTests/`).
private let counterSchema = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("docs/schema/counter.schema.json")

/// Every JSON problem of a finished run: the envelope, then the schema when it can be checked.
private func problems(_ lines: [String]) async throws -> [String] {
  var problems = JSONLines.envelopeProblems(of: lines, command: "counter")
  if SchemaValidator.isAvailable {
    problems += try await SchemaValidator.failures(of: lines, schema: counterSchema)
  }
  return problems
}

private func events(_ lines: [String], _ name: String) throws -> [JSONEvent] {
  try JSONLines.parse(lines).filter { $0.event == name }
}

@Suite struct CounterEndToEndTests {
  @Test func positionalActionsGiveAnExactFinalCount() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--json", "--delay", "50ms", "+", "+", "-", "inc", "dec", "+", "d", "+"])
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let end = try #require(try events(outcome.stdout, "end").first)
    #expect(end.value(at: "state.count") as? Int == 4)
    #expect(end.value(at: "state.is_loading") as? Bool == false)
    #expect(end.string("reason") == "completed")
    let actions = try events(outcome.stdout, "transition").compactMap { $0.string("action") }
    #expect(
      actions == [
        "increment", "increment", "decrement", "increment", "decrement", "increment",
        "delayed_increment", "increment", "increment_response",
      ])
  }

  @Test func textPrintsOnlyTheChangedFieldsAndTheFinalState() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--delay", "50ms", "+", "d"])
    #expect(outcome.termination == .exited(0))
    let bodies = outcome.stdout.map { String($0.dropFirst(19)) }
    #expect(
      bodies == [
        "increment  count: 0 → 1",
        "delayedIncrement  isLoading: false → true",
        "effect delayed_increment#1 started (50ms)",
        "incrementResponse  count: 1 → 2, isLoading: true → false",
        "count: 2, isLoading: false",
      ])
    #expect(outcome.stdout.allSatisfy { $0.dropFirst(8).hasPrefix("  counter  ") })
  }

  /// `d`, then another `d` 100 ms into its 400 ms delay: each policy's visible outcome.
  @Test(arguments: [
    ("drop", 1, ["ignored", "effect_dropped"]),
    ("latest", 1, ["effect_queued", "effect_finished:cancelled"]),
    ("queue", 2, ["effect_queued"]),
    ("parallel", 2, ["effect_started", "effect_started"]),
  ])
  func eachPolicyShowsItsOutcome(policy: String, count: Int, shows: [String]) async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--json", "--delay", "400ms", "--policy", policy, "--input", "-"],
      stdin: .text("d\n+100ms d\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let parsed = try JSONLines.parse(outcome.stdout)
    let seen = parsed.compactMap { event -> String? in
      guard let name = event.event, name != "transition", name != "start", name != "end" else {
        return nil
      }
      if name == "effect_finished" { return "\(name):\(event.string("outcome") ?? "")" }
      return name
    }
    for expected in shows { #expect(seen.contains(expected)) }
    if policy == "parallel" {
      #expect(Array(seen.prefix(2)) == ["effect_started", "effect_started"])
    }
    let end = try #require(parsed.last)
    #expect(end.value(at: "state.count") as? Int == count)
    #expect(end.value(at: "state.in_flight") as? Int == 0)
  }

  @Test func sigintWhileADelayedIncrementIsPendingCancelsItAndDiesBySIGINT() async throws {
    let loadctl = try LoadctlProcess.start(
      ["counter", "--json", "--delay", "30s", "+", "d"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "effect_started"]))
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    let lines = loadctl.stdoutLines
    #expect(try await problems(lines) == [])
    let parsed = try JSONLines.parse(lines)
    let tail = parsed.suffix(3)
    #expect(tail.map { $0.event } == ["transition", "effect_finished", "end"])
    let interrupt = try #require(tail.first)
    #expect(interrupt.string("action") == "interrupt")
    #expect(interrupt.value(at: "from.is_loading") as? Bool == true)
    #expect(interrupt.value(at: "to.is_loading") as? Bool == false)
    #expect(parsed[parsed.count - 2].string("outcome") == "cancelled")
    let end = try #require(parsed.last)
    #expect(end.string("reason") == "interrupted")
    #expect(end.integer("exit_code") == 130)
    #expect(end.value(at: "state.count") as? Int == 1)
    #expect(loadctl.leftoverProcesses() == [])
  }

  @Test func sigintInTextModePrintsTheCancellationAndTheLastState() async throws {
    let loadctl = try LoadctlProcess.start(["counter", "--delay", "30s", "d"])
    try await loadctl.waitForLine(containing: "started (30s)")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    let bodies = loadctl.stdoutLines.suffix(3).map { String($0.dropFirst(19)) }
    #expect(
      bodies == [
        "interrupt  isLoading: true → false",
        "effect delayed_increment#1 cancelled",
        "count: 0, isLoading: false  (interrupted)",
      ])
  }

  @Test func aBadInputLineIsRejectedAndTheRunGoesOnThenExits65() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--json", "--input", "-"], stdin: .text("+\nplus\n+\n"))
    #expect(outcome.termination == .exited(65))
    #expect(try await problems(outcome.stdout) == [])
    let rejected = try #require(try events(outcome.stdout, "input_rejected").first)
    #expect(rejected.integer("line") == 2)
    let end = try #require(try JSONLines.parse(outcome.stdout).last)
    #expect(end.value(at: "state.count") as? Int == 2)
    #expect(end.integer("rejected_lines") == 1)
    #expect(
      outcome.stderr
        == "Error: input line 2: unknown action 'plus' (expected +, -, d or cancel; or inc, dec, "
        + "delayed)\n")
  }

  @Test(arguments: [
    (["counter", "+", "x"], Int32(65), "Error: argument 2: unknown action 'x'"),
    (["counter", "d", "+1s"], 65, "Error: argument 2: nothing after the time prefix '+1s'"),
    (["counter", "--input", "/nonexistent/actions"], 65, "Error: cannot open '/nonexistent/"),
    (["counter", "--policy", "first"], 64, "Error: invalid value 'first' for '--policy'"),
    (["counter", "--delay", "soon"], 64, "Error: invalid duration 'soon' for '--delay'"),
    (["counter", "--input", "-", "+"], 64, "Error: give actions as arguments or with '--input'"),
  ])
  func badArgumentsAndOptionsFailWithOneErrorLine(
    arguments: [String], status: Int32, error: String
  ) async throws {
    let outcome = try await LoadctlProcess.run(arguments)
    #expect(outcome.termination == .exited(status))
    #expect(outcome.stdout == [])
    #expect(outcome.stderr.hasPrefix(error))
    #expect(outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
  }

  @Test(.enabled(if: SchemaValidator.isAvailable))
  func theSchemaRejectsWhatCounterNeverPrints() async throws {
    let failures = try await SchemaValidator.failures(
      of: [
        #"{"seq":1,"elapsed_ms":0,"command":"counter","event":"transition","action":"increment","#
          + #""from":{"count":0,"is_loading":false},"to":{"count":1,"is_loading":false}}"#,
        #"{"seq":2,"elapsed_ms":1,"command":"counter","event":"tick"}"#,
      ], schema: counterSchema)
    #expect(failures.count == 2)
  }
}
