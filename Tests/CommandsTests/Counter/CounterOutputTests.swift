import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// What a delayed increment's command prints: each line an `output` event of its effect, on the
/// test clock with a fake command.
@Suite struct CounterOutputRenderingTests {
  static let prints: [ExternalCommand.Output] = [
    .line(.stdout, "{n} out"), .line(.stderr, "{n} \u{1B}[31merr"),
  ]

  @Test func textShowsEachLineWithItsEffectAndStderrMarked() async {
    let harness = CounterHarness(clock: VirtualClock())
    let work = FakeWork(clock: harness.clock, prints: Self.prints)
    let flow = CounterFlow(policy: .parallel, workLabel: "$ make", work: work.operation)
    _ = await harness.run(flow, lines: ["d", "+500ms d"])
    #expect(
      harness.lines == [
        "  0.000s  counter  delayedIncrement  isLoading: false → true",
        "  0.000s  counter  effect delayed_increment#1 started ($ make)",
        "  0.000s  counter  #1 | run 1 out",
        "  0.000s  counter  #1 ! run 1 \\u{1B}[31merr",
        "  0.500s  counter  delayedIncrement  inFlight: 1 → 2",
        "  0.500s  counter  effect delayed_increment#2 started ($ make)",
        "  0.500s  counter  #2 | run 2 out",
        "  0.500s  counter  #2 ! run 2 \\u{1B}[31merr",
        "  1.000s  counter  incrementResponse  count: 0 → 1, inFlight: 2 → 1",
        "  1.500s  counter  incrementResponse  count: 1 → 2, isLoading: true → false",
      ])
  }

  @Test func jsonHasAnOutputEventPerLineAndNoTransitionForIt() async throws {
    let harness = CounterHarness(clock: VirtualClock(), json: true)
    let work = FakeWork(
      clock: harness.clock, prints: Self.prints + [.dropped(.stderr, bytes: 70_000)])
    let flow = CounterFlow(policy: .drop, workLabel: "$ make", work: work.operation)
    _ = await harness.run(flow, lines: ["d"])
    let events = try harness.lines.map { try JSONParser.parse($0) }
    let outputs = events.filter { $0["event"] == "output" }
    #expect(
      outputs.map(\.serialized) == [
        #"{"seq":3,"elapsed_ms":0,"command":"counter","event":"output","serial":1,"#
          + #""stream":"stdout","line":"run 1 out"}"#,
        #"{"seq":4,"elapsed_ms":0,"command":"counter","event":"output","serial":1,"#
          + #""stream":"stderr","line":"run 1 \u001b[31merr"}"#,
        #"{"seq":5,"elapsed_ms":0,"command":"counter","event":"output","serial":1,"#
          + #""stream":"stderr","dropped_bytes":70000}"#,
      ])
    #expect(!events.contains { $0["action"] == "output" })
  }

  @Test(arguments: [false, true])
  func aBatchOfLinesPrintsWhatItsLinesOneByOneWould(json: Bool) async {
    let lines = ["plain", "bell \u{7} é", "", "rtl \u{202E}x", "last"]
    let shown = { (prints: [ExternalCommand.Output]) in
      let harness = CounterHarness(clock: VirtualClock(), json: json)
      let work = FakeWork(clock: harness.clock, prints: prints)
      _ = await harness.run(
        CounterFlow(policy: .drop, workLabel: "$ make", work: work.operation), lines: ["d"])
      return harness.lines
    }
    let batched = await shown([.lines(.stdout, lines), .lines(.stderr, lines)])
    let single = await shown(lines.map { .line(.stdout, $0) } + lines.map { .line(.stderr, $0) })
    #expect(batched == single)
    let outputs = batched.filter { $0.contains(json ? #""event":"output""# : "  #1 ") }
    #expect(outputs.count == 2 * lines.count)
  }
}

/// `--clear`: the screen is cleared just before each delayed increment's effect starts.
@Suite struct CounterClearTests {
  @Test func theScreenIsClearedAsEachDelayedIncrementStarts() async {
    let harness = CounterHarness(clock: VirtualClock())
    let work = FakeWork(clock: harness.clock)
    var flow = CounterFlow(policy: .queue, workLabel: "$ make", work: work.operation)
    flow.clears = true
    _ = await harness.run(flow, lines: ["+", "d", "d"])
    let clear = "\u{1B}[H\u{1B}[2J\u{1B}[3J"
    #expect(harness.lines.filter { $0.hasPrefix(clear) }.count == 2)
    #expect(
      harness.lines.filter { $0.contains(clear) }.allSatisfy { $0.hasSuffix("started ($ make)") })
  }

  @Test func withoutItNothingIsCleared() async {
    let harness = CounterHarness(clock: VirtualClock())
    let flow = CounterFlow(
      policy: .drop, workLabel: "$ make", work: FakeWork(clock: harness.clock).operation)
    _ = await harness.run(flow, lines: ["d"])
    #expect(!harness.lines.contains { $0.contains("\u{1B}") })
  }
}

/// `--exec`'s real commands through ``ExternalCommand/run(_:what:output:show:)``: which lines
/// reach the effect for each `--output`.
@Suite struct ExternalCommandOutputTests {
  private static func run(_ command: String, _ mode: ExternalCommand.OutputMode) async
    -> (lines: [ExternalCommand.Output], failure: String?)
  {
    let shown = Locked<[ExternalCommand.Output]>([])
    var failure: String?
    do {
      try await ExternalCommand.run(
        ExternalCommand.shell(command, killAfter: .seconds(1)), what: "command", output: mode
      ) { line in shown.withLock { $0.append(line) } }
    } catch {
      failure = (error as? LoadFailure)?.message ?? "\(error)"
    }
    return (shown.withLock { $0 }, failure)
  }

  private static func stream(
    _ lines: [ExternalCommand.Output], _ stream: Subprocess.LineIterator.Stream
  ) -> [String] {
    lines.flatMap { output -> [String] in
      if case .lines(stream, let text) = output { text } else { [] }
    }
  }

  @Test func showGivesBothStreamsAndALastLineWithoutANewline() async {
    let (lines, failure) = await Self.run(
      "echo hello-stdout; echo warn-stderr >&2; printf last", .show)
    #expect(failure == nil)
    #expect(Self.stream(lines, .stdout) == ["hello-stdout", "last"])
    #expect(Self.stream(lines, .stderr) == ["warn-stderr"])
  }

  @Test func failedGivesTheLinesOnlyWhenTheCommandFails() async {
    let passing = await Self.run("echo a; echo b >&2", .failed)
    #expect(passing.lines.isEmpty)
    #expect(passing.failure == nil)
    let failing = await Self.run("echo a; echo line1 >&2; echo line2 >&2; exit 2", .failed)
    #expect(Self.stream(failing.lines, .stdout) == ["a"])
    #expect(Self.stream(failing.lines, .stderr) == ["line1", "line2"])
    #expect(failing.failure == "command failed (exit status 2): line2")
  }

  @Test func hideGivesNothingAndTheFailureStillNamesTheLastStderrLine() async {
    let (lines, failure) = await Self.run("echo a; echo oops >&2; exit 1", .hide)
    #expect(lines.isEmpty)
    #expect(failure == "command failed (exit status 1): oops")
  }

  @Test func aCommandThatClosesItsPipesIsWaitedForNotKilled() async {
    let (lines, failure) = await Self.run("echo a; exec >&- 2>&-; sleep 0.2; exit 3", .show)
    #expect(Self.stream(lines, .stdout) == ["a"])
    #expect(failure == "command failed (exit status 3)")
  }

  @Test func failedHoldsOnlyTheLastLinesAndCountsTheRest() {
    var held = ExternalCommand.HeldOutput()
    let line = String(repeating: "x", count: 1000)
    for _ in 0..<2000 { held.append(.line(.stdout, line), size: 1000) }
    let lines = held.lines
    #expect(lines.count == ExternalCommand.heldBytes / 1000 + 1)
    #expect(
      lines.first == .dropped(.stdout, bytes: 2_000_000 - ExternalCommand.heldBytes / 1000 * 1000))
  }
}
