import Foundation
import Testing

/// The schema `loadctl timer --json` is documented by, found from this file's path.
private let timerSchema = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("docs/schema/timer.schema.json")

private func problems(_ lines: [String]) async throws -> [String] {
  var problems = JSONLines.envelopeProblems(of: lines, command: "timer")
  if SchemaValidator.isAvailable {
    problems += try await SchemaValidator.failures(of: lines, schema: timerSchema)
  }
  return problems
}

/// `tick`, `toggle`, `effect_started#2`, …: the flow's events in order, without the envelope.
private func steps(_ events: [JSONEvent]) -> [String] {
  events.compactMap { event in
    switch event.event {
    case "transition": event.string("action")
    case "ignored": "ignored \(event.string("action") ?? "")"
    case "effect_started", "effect_queued", "effect_finished":
      "\(event.event ?? "")#\(event.integer("serial") ?? 0)"
    default: nil
    }
  }
}

@Suite struct TimerEndToEndTests {
  @Test func twentyTicksOfTenMillisecondsEndWithTheFinalLateness() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--interval", "10ms", "--ticks", "20"])
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    let ticks = events.filter { $0.string("action") == "tick" }
    let end = try #require(events.last)
    #expect(end.value(at: "state.ticks") as? Int == 20)
    #expect(end.value(at: "state.is_timer_active") as? Bool == false)
    #expect(end.string("ended_by") == "ticks")
    // On a busy machine the timer may skip deadlines; they count, and the count stops at 20.
    #expect(ticks.count <= 20)
    #expect(ticks.count + (end.integer("missed_ticks") ?? -1) >= 20)
    // Skipping a deadline keeps every delivered tick less than one interval late.
    let lateness = try #require(end.number("final_lateness_ms"))
    #expect(lateness >= 0 && lateness < 10)
    #expect(lateness == ticks.last?.number("lateness_ms"))
    #expect(steps(events).prefix(2) == ["start", "effect_started#1"])
    #expect(steps(events).suffix(1) == ["effect_finished#1"])
  }

  @Test func textShowsTheElapsedTimeAndTheDial() async throws {
    let outcome = try await LoadctlProcess.run(["timer", "--interval", "10ms", "--ticks", "20"])
    #expect(outcome.termination == .exited(0))
    let bodies = outcome.stdout.map { String($0.dropFirst(17)) }
    #expect(bodies.first == "▶ 00:00.00 ▕               ▏  start  isTimerActive: false → true")
    let ticks = bodies.filter { $0.contains("  tick  ") }
    #expect(
      ticks.dropLast().allSatisfy { $0.hasPrefix("▶ 00:00.") && $0.contains("▏  tick  ticks: ") })
    #expect(
      ticks.last?.hasPrefix("■ 00:00.20 ▕█████          ▏  tick  isTimerActive: true → false, ")
        == true)
    let last = try #require(bodies.last)
    #expect(last.hasPrefix("■ 00:00.20 ▕█████          ▏  20 ticks, final tick "))
    #expect(last.hasSuffix(" ms late"))
  }

  @Test func aTimedScriptTogglesAndNeverRunsTwoTimers() async throws {
    // Ticks at 100 and 200 ms; off at 250; on again at 450 (tick at 550); stop at 600.
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--interval", "100ms", "--input", "-"],
      stdin: .text("+250ms toggle\n+200ms toggle\n+150ms stop\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      steps(events) == [
        "start", "effect_started#1", "tick", "tick", "toggle", "effect_finished#1", "toggle",
        "effect_started#2", "tick", "stop", "effect_finished#2",
      ])
    #expect(events.last?.value(at: "state.ticks") as? Int == 3)
    #expect(events.last?.string("ended_by") == "input")
  }

  @Test func toggleToggleToggleAtOnceLeavesOneTimerTicking() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--paused", "--interval", "100ms", "--input", "-"],
      stdin: .text("toggle\ntoggle\ntoggle\n+250ms stop\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    let order = steps(events)
    let oldEnded = try #require(order.firstIndex(of: "effect_finished#1"))
    let newStarted = try #require(order.firstIndex(of: "effect_started#2"))
    #expect(oldEnded < newStarted)
    #expect(order.filter { $0 == "tick" }.count == 2)
    #expect(order.suffix(2) == ["stop", "effect_finished#2"])
    #expect(events.last?.value(at: "state.ticks") as? Int == 2)
  }

  @Test func sigintStopsTheTimerPrintsTheLastStateAndDiesBySIGINT() async throws {
    let loadctl = try LoadctlProcess.start(["timer", "--json", "--interval", "20ms"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["action": "tick"]))
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    let lines = loadctl.stdoutLines
    #expect(try await problems(lines) == [])
    let events = try JSONLines.parse(lines)
    #expect(steps(events).suffix(2) == ["stop", "effect_finished#1"])
    let stop = try #require(events.last { $0.string("action") == "stop" })
    #expect(stop.value(at: "to.is_timer_active") as? Bool == false)
    let end = try #require(events.last)
    #expect(end.string("reason") == "interrupted")
    #expect(end.string("ended_by") == "cancelled")
    #expect(end.value(at: "state.ticks") as? Int == stop.value(at: "to.ticks") as? Int)
    #expect(loadctl.leftoverProcesses() == [])
  }

  @Test func theDurationStopsTheRun() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--interval", "50ms", "--duration", "300ms"])
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(steps(events).suffix(2) == ["stop", "effect_finished#1"])
    let end = try #require(events.last)
    #expect(end.string("ended_by") == "duration")
    // The tick due at 300 ms normally lands within the 10 ms grace; a loaded machine may miss it.
    #expect((5...6).contains(end.value(at: "state.ticks") as? Int ?? 0))
  }

  @Test func aBadInputLineIsRejectedWithItsNumber() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--paused", "--input", "-"], stdin: .text("reset\ntick\nstop\n"))
    #expect(outcome.termination == .exited(65))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(steps(events) == ["reset", "ignored stop"])
    #expect(
      outcome.stderr
        == "Error: input line 2: 'tick' is sent by the timer, not by input (expected toggle, "
        + "start, stop or reset)\n")
  }

  @Test(arguments: [
    (["timer", "--interval", "0ms"], Int32(64), "Error: invalid value '0ms' for '--interval'"),
    (["timer", "--duration", "0"], 64, "Error: invalid value '0' for '--duration'"),
    (["timer", "--ticks", "0"], 64, "Error: invalid value '0' for '--ticks' (must be 1 or more)"),
    (["timer", "--paused"], 64, "Error: '--paused' needs '--input'"),
    (["timer", "--interval", "fast"], 64, "Error: invalid duration 'fast' for '--interval'"),
    (["timer", "--input", "/nonexistent/script"], 65, "Error: cannot open '/nonexistent/"),
    (["timer", "toggle"], 64, "Error: unexpected argument 'toggle'"),
  ])
  func badOptionsFailWithOneErrorLine(arguments: [String], status: Int32, error: String)
    async throws
  {
    let outcome = try await LoadctlProcess.run(arguments)
    #expect(outcome.termination == .exited(status))
    #expect(outcome.stdout == [])
    #expect(outcome.stderr.hasPrefix(error))
  }
}
