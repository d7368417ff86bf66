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

/// `250 toggle`, `250 effect_finished#1`: the steps with their (virtual) millisecond.
private func timed(_ events: [JSONEvent]) -> [String] {
  events.compactMap { event in
    let step = steps([event]).first
    return step.map { "\(Int(event.elapsedMilliseconds ?? -1)) \($0)" }
  }
}

@Suite(.processSlots) struct TimerEndToEndTests {
  /// A timer on virtual time with no end is refused: it ticked as fast as the machine went, for
  /// ever (300,000 ticks a second, at 100% CPU with `-q`). With an end it runs.
  @Test(arguments: [[], ["-q"], ["--json"]])
  func aVirtualTimerWithNoEndIsRefused(extra: [String]) async throws {
    let outcome = try await LoadctlProcess.run(["timer", "--clock", "virtual"] + extra)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stderr.hasPrefix("Error: '--clock virtual' needs '--ticks', '--duration' or"))
    let ended = try await LoadctlProcess.run(["timer", "--clock", "virtual", "--ticks", "2", "-q"])
    #expect(ended.termination == .exited(0))
  }

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

  /// An interval below a microsecond is still a positive `interval_ms` (it was written `0`,
  /// which the schema refuses).
  @Test func aSubMicrosecondIntervalIsWrittenAsItIs() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--clock", "virtual", "--interval", "1ns", "--ticks", "2"])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    let start = try #require(try JSONLines.parse(outcome.stdout).first)
    #expect(start.value(at: "options.interval_ms") as? Double == 0.000001, "\(outcome.stdout)")
    #expect(try await problems(outcome.stdout) == [])
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
    // On virtual time, so every step lands on its exact millisecond.
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--clock", "virtual", "--interval", "100ms", "--input", "-"],
      stdin: .text("+250ms toggle\n+200ms toggle\n+150ms stop\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      timed(events) == [
        "0 start", "0 effect_started#1", "100 tick", "200 tick", "250 toggle",
        "250 effect_finished#1", "450 toggle", "450 effect_started#2", "550 tick", "600 stop",
        "600 effect_finished#2",
      ])
    #expect(events.last?.value(at: "state.ticks") as? Int == 3)
    #expect(events.last?.string("ended_by") == "input")
  }

  @Test func aTimedScriptOnRealTimeKeepsItsOrder() async throws {
    // Ticks at 100 and 200 ms; off at 250; on again at 450 (tick at 550); stop at 600.
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--interval", "100ms", "--input", "-"],
      stdin: .text("+250ms toggle\n+200ms toggle\n+150ms stop\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let order = steps(try JSONLines.parse(outcome.stdout))
    let oldEnded = try #require(order.firstIndex(of: "effect_finished#1"))
    let newStarted = try #require(order.firstIndex(of: "effect_started#2"))
    #expect(oldEnded < newStarted)
    #expect(order.suffix(2) == ["stop", "effect_finished#2"])
  }

  @Test func toggleToggleToggleAtOnceLeavesOneTimerTicking() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "timer", "--json", "--clock", "virtual", "--paused", "--interval", "100ms", "--input", "-",
      ],
      stdin: .text("toggle\ntoggle\ntoggle\n+250ms stop\n"))
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    #expect(
      timed(events) == [
        "0 toggle", "0 effect_started#1", "0 toggle", "0 toggle", "0 effect_queued#2",
        "0 effect_finished#1", "0 effect_started#2", "100 tick", "200 tick", "250 stop",
        "250 effect_finished#2",
      ])
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

  @Test func theDurationStopsTheRunLikeCtrlC() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--clock", "virtual", "--interval", "50ms", "--duration", "300ms"])
    #expect(outcome.termination == .exited(0))
    #expect(try await problems(outcome.stdout) == [])
    let events = try JSONLines.parse(outcome.stdout)
    // The tick due at 300 ms lands; the run ends 10 ms later (the grace for that tick).
    #expect(timed(events).suffix(3) == ["300 tick", "310 stop", "310 effect_finished#1"])
    let end = try #require(events.last)
    #expect(end.string("ended_by") == "duration")
    #expect(end.value(at: "state.ticks") as? Int == 6)
    #expect(end.number("final_lateness_ms") == 0)
  }

  @Test func theDurationStopsARealTimeRun() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--json", "--interval", "50ms", "--duration", "200ms"])
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(steps(events).suffix(2) == ["stop", "effect_finished#1"])
    #expect(events.last?.string("ended_by") == "duration")
    #expect((events.last?.elapsedMilliseconds ?? 0) >= 200)
  }

  @Test func atATerminalSpaceTogglesAndQQuits() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        // Under load a late tick may count several at once (0 → 2), so wait for any first tick
        // and for the reset's change back to 0, whatever number it came from.
        ["wait", "tick  ticks: 0 → "], ["send", " "],
        ["wait", "toggle  isTimerActive: true → false"], ["send", "r"], ["wait", "reset  ticks: "],
        ["send", "q"],
      ],
      ["timer", "--interval", "100ms", "--no-color"])
    #expect(result.error == nil)
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
    #expect(result.output.contains("timer#1 cancelled"))
    #expect(result.output.contains("keys: space toggle"))
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
