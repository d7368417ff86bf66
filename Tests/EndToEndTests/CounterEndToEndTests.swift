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

@Suite(.processSlots) struct CounterEndToEndTests {
  /// On virtual time: the `+` after `d` is applied before the delay ends, however long the
  /// machine takes between the two.
  @Test func positionalActionsGiveAnExactFinalCount() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "counter", "--json", "--clock", "virtual", "--delay", "50ms", "+", "+", "-", "inc", "dec",
        "+", "d", "+",
      ])
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

  /// `d`, then another `d` 100 ms into its 400 ms delay, on virtual time so every millisecond
  /// is exact: each policy's visible outcome, as `docs/counter.md` shows it.
  @Test(arguments: [
    (
      "drop",
      [
        "0 delayed_increment 0/1", "0 effect_started#1", "100 ignored delayed_increment",
        "100 effect_dropped#2", "400 increment_response 1/0", "400 effect_finished#1 finished",
        "400 end 1",
      ]
    ),
    (
      "latest",
      [
        "0 delayed_increment 0/1", "0 effect_started#1", "100 delayed_increment 0/1",
        "100 effect_queued#2", "100 effect_finished#1 cancelled", "100 effect_started#2",
        "500 increment_response 1/0", "500 effect_finished#2 finished", "500 end 1",
      ]
    ),
    (
      "queue",
      [
        "0 delayed_increment 0/1", "0 effect_started#1", "100 delayed_increment 0/2",
        "100 effect_queued#2", "400 increment_response 1/1", "400 effect_finished#1 finished",
        "400 effect_started#2", "800 increment_response 2/0", "800 effect_finished#2 finished",
        "800 end 2",
      ]
    ),
    (
      "parallel",
      [
        "0 delayed_increment 0/1", "0 effect_started#1", "100 delayed_increment 0/2",
        "100 effect_started#2", "400 increment_response 1/1", "400 effect_finished#1 finished",
        "500 increment_response 2/0", "500 effect_finished#2 finished", "500 end 2",
      ]
    ),
  ])
  func eachPolicyShowsItsOutcome(policy: String, expected: [String]) async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "counter", "--json", "--clock", "virtual", "--delay", "400ms", "--policy", policy,
        "--input", "-",
      ],
      stdin: .text("d\n+100ms d\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let steps = try JSONLines.parse(outcome.stdout).compactMap { event -> String? in
      let at = "\(Int(event.elapsedMilliseconds ?? -1))"
      switch event.event {
      case "transition":
        let count = event.value(at: "to.count") as? Int ?? -1
        let inFlight = event.value(at: "to.in_flight") as? Int ?? -1
        return "\(at) \(event.string("action") ?? "") \(count)/\(inFlight)"
      case "ignored": return "\(at) ignored \(event.string("action") ?? "")"
      case "effect_finished":
        return
          "\(at) effect_finished#\(event.integer("serial") ?? 0) \(event.string("outcome") ?? "")"
      case "effect_started", "effect_queued", "effect_dropped":
        return "\(at) \(event.event ?? "")#\(event.integer("serial") ?? 0)"
      case "end": return "\(at) end \(event.value(at: "state.count") as? Int ?? -1)"
      default: return nil
      }
    }
    #expect(steps == expected)
  }

  @Test func aRealTimeScriptGivesTheSameCountsAsVirtualTime() async throws {
    let outcome = try await LoadctlProcess.run(
      ["counter", "--json", "--delay", "300ms", "--policy", "parallel", "--input", "-"],
      stdin: .text("d\n+100ms d\n+50ms +\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let end = try #require(try JSONLines.parse(outcome.stdout).last)
    #expect(end.value(at: "state.count") as? Int == 3)
    #expect(end.value(at: "state.in_flight") as? Int == 0)
    #expect((end.elapsedMilliseconds ?? 0) >= 400)
  }

  /// The signal is sent once an action 200 ms into the run has been printed: the runtime arms
  /// its signal watcher beside the flow, and a SIGINT in the first instants of a run can be lost
  /// while libdispatch registers it (a race in the runtime, not in this flow).
  @Test func sigintWhileADelayedIncrementIsPendingCancelsItAndDiesBySIGINT() async throws {
    let loadctl = try LoadctlProcess.start(
      ["counter", "--json", "--delay", "600s", "d", "+200ms +"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["action": "increment"]))
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
    let loadctl = try LoadctlProcess.start(["counter", "--delay", "600s", "d", "+200ms +"])
    try await loadctl.waitForLine(containing: "increment  count: 0 → 1")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    let bodies = loadctl.stdoutLines.suffix(3).map { String($0.dropFirst(19)) }
    #expect(
      bodies == [
        "interrupt  isLoading: true → false",
        "effect delayed_increment#1 cancelled",
        "count: 1, isLoading: false  (interrupted)",
      ])
  }

  /// Each key waits for the answer to the one before. The delay is longer than any run, so the
  /// second `d` always finds the first still pending, and `c` ends it.
  @Test func atATerminalTheKeysAreTheButtons() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "keys: + increment"], ["send", "+"], ["wait", "count: 0 → 1"], ["send", "d"],
        ["wait", "started (10m)"], ["send", "d"], ["wait", "dropped (drop policy)"],
        ["send", "c"], ["wait", "delayed_increment#1 cancelled"], ["send", "-"],
        ["wait", "count: 1 → 0"], ["send", "q"],
      ],
      ["counter", "--delay", "600s", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
    #expect(result.output.contains("cancel  isLoading: true → false"))
    #expect(result.output.contains("  count: 0, isLoading: false"))
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
        == "Error: input line 2: unknown action 'plus' (expected +, -, d or c; or inc, dec, "
        + "delayed, cancel)\n")
  }

  @Test(arguments: [
    (["counter", "+", "x"], Int32(64), "Error: argument 2: unknown action 'x'"),
    (["counter", "d", "+1s"], 64, "Error: argument 2: nothing after the time prefix '+1s'"),
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
