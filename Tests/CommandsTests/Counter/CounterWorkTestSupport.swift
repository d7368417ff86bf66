import Foundation
import LoadctlCommands
import LoadctlCore

/// A fake of `--exec`: each run takes `duration` on the test clock, then succeeds or fails as
/// scripted, and records what happened to it, so tests can see cancellation without processes.
final class FakeWork: Sendable {
  /// How the n-th run ends once its time has passed (runs past the script succeed).
  enum Ending: Sendable {
    case succeeds
    case fails(String)
  }

  let clock: VirtualClock
  private let duration: Duration
  private let script: [Ending]
  /// What each run prints as it starts: `run N` in place of `{n}`.
  private let prints: [ExternalCommand.Output]
  private let state = Locked((runs: 0, log: [String]()))

  init(
    clock: VirtualClock, duration: Duration = .seconds(1), script: [Ending] = [],
    prints: [ExternalCommand.Output] = []
  ) {
    self.clock = clock
    self.duration = duration
    self.script = script
    self.prints = prints
  }

  /// `run 1 started`, `run 1 cancelled`, `run 2 failed`, `run 3 done`, in the order they happened.
  var log: [String] { state.withLock { $0.log } }

  /// The work as a flow takes it.
  var operation: CounterFlow.Work {
    { [self] show in try await run(show: show) }
  }

  private func run(show: @Sendable (ExternalCommand.Output) -> Void) async throws {
    let number = state.withLock { state in
      state.runs += 1
      state.log.append("run \(state.runs) started")
      return state.runs
    }
    for output in prints {
      guard case .lines(let stream, let lines) = output else {
        show(output)
        continue
      }
      show(.lines(stream, lines.map { $0.replacingOccurrences(of: "{n}", with: "run \(number)") }))
    }
    let record = { (what: String) in self.state.withLock { $0.log.append("run \(number) \(what)") }
    }
    do {
      try await clock.sleep(for: duration)
    } catch {
      record("cancelled")
      throw error
    }
    if number <= script.count, case .fails(let message) = script[number - 1] {
      record("failed")
      throw LoadFailure(message)
    }
    record("done")
  }
}

/// A counter store on its own test clock whose delayed increment runs `work`.
func makeCounterStore(_ policy: EffectPolicy, work: FakeWork) -> TestStore<
  CounterState, CounterAction
> {
  let flow = CounterFlow(policy: policy, workLabel: "$ fake", work: work.operation)
  return TestStore(initialState: CounterState(), clock: work.clock, reducer: flow.reduce)
}

/// Runs `loadctl counter` on a test clock, writing its output to a temporary file.
final class CounterHarness: Sendable {
  let clock: VirtualClock
  let context: RunContext
  private let path: String
  private let fd: Int32

  init(clock: VirtualClock, json: Bool = false) {
    self.clock = clock
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("counter-run-\(UUID().uuidString).txt").path
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    let elapsed: @Sendable () -> Duration = { clock.now.offset }
    let output = EventOutput(
      command: "counter", json: json, quiet: false, style: Style(enabled: false),
      writer: OutputWriter(fileDescriptor: fd), elapsed: elapsed)
    context = RunContext(
      output: output, clock: clock, elapsed: elapsed, errors: OutputWriter(fileDescriptor: fd))
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// Runs `flow` over `lines` until it settles, and returns its end.
  func run(_ flow: CounterFlow, lines: [String]) async -> FlowEnd {
    let context = context
    let task = clock.launch {
      await FlowRunner.run(
        flow, lines: LineSource.lines(lines), keys: .unlessLines, context: context)
    }
    clock.run(limit: 10_000)
    return await task.value
  }

  /// Everything written so far, one entry per line.
  var lines: [String] {
    context.output.flush()
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }
}
