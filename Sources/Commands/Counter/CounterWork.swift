import LoadctlCore

/// What a delayed increment does before it lands: the demo's sleep (`--delay`), or a real
/// command (`--exec CMD`, run with `/bin/sh -c`).
///
/// The flow only ever sees the work as a function (``operation(clock:)``), so unit tests inject
/// fakes on a test clock and the effect policies apply to real commands unchanged: a cancelled
/// effect (`latest`, `cancel`, Ctrl-C) tears the command's process group down (SIGTERM,
/// `--kill-after`, SIGKILL) before the effect ends.
///
/// ```swift
/// let work = CounterWork.command("make test", killAfter: .seconds(2))
/// let flow = CounterFlow(policy: .queue, workLabel: work.label, work: work.operation(clock: clock))
/// ```
package enum CounterWork: Sendable, Equatable {
  /// Wait this long on the run's clock (`--delay`).
  case sleep(Duration)
  /// Run the shell command, its lines shown as `output` says; cancelled, wait `killAfter`
  /// between SIGTERM and SIGKILL.
  case command(String, killAfter: Duration, output: ExternalCommand.OutputMode)

  /// Picks and validates the work from the options.
  ///
  /// `--delay` is the demo's sleep: given explicitly beside `--exec` it is a usage error, since
  /// the command's own run time is the delay. `--kill-after` only applies to `--exec`, and
  /// `--exec` is refused on virtual time, where real processes cannot run.
  /// - Throws: `UsageError` (exit 64) for a combination that cannot work.
  package init(_ invocation: Invocation, mode: RunMode) throws(UsageError) {
    typealias Option = CounterCommand.Option
    guard let exec = invocation[Option.exec] else {
      let given: [any OptionKeyProtocol] = [Option.killAfter, Option.output]
      for option in given where invocation.isGiven(option) {
        throw .invalidValue(
          "'--\(option.spec.name)' only applies to '--exec'", command: "counter")
      }
      self = .sleep(invocation[Option.delay])
      return
    }
    try ExternalCommand.requireRealTime("--exec", mode: mode, command: "counter")
    if invocation.isGiven(Option.delay) {
      throw .invalidValue(
        "'--delay' cannot be used with '--exec': the command's own run time is the delay",
        command: "counter")
    }
    self = .command(
      exec, killAfter: invocation[Option.killAfter], output: invocation[Option.output])
  }

  /// The work's settings for the `start` event: `delay_ms`, or `exec` and `kill_after_ms`, and
  /// `output` unless it is `show`.
  package var options: [(String, JSONValue)] {
    switch self {
    case .sleep(let delay):
      [("delay_ms", .double(EventOutput.milliseconds(delay)))]
    case .command(let command, let killAfter, let output):
      // `show`, the default, is not echoed: a recording made before `--output` replays as it is.
      [
        ("exec", .string(command)),
        ("kill_after_ms", .double(EventOutput.milliseconds(killAfter))),
      ] + (output == .show ? [] : [("output", .string(output.rawValue))])
    }
  }

  /// How text output names the work when its effect starts: `1s`, or `$ make test`.
  package var label: String {
    switch self {
    case .sleep(let delay): formatDuration(delay)
    case .command(let command, _, _): "$ " + command.escapingControlCharacters
    }
  }

  /// The work as the flow runs it.
  ///
  /// It returns when the increment should land. It throws `CancellationError` when cancelled
  /// (for a command, once its group has been torn down and reaped), and ``LoadFailure`` when the
  /// command could not start, exited non-zero or was killed by a signal: `command failed (exit
  /// status 3): <its last stderr line>`. What the command prints goes to `show`, line by line,
  /// as its `--output` says (``ExternalCommand/run(_:what:output:show:)``).
  package func operation(clock: any Clock<Duration>) -> CounterFlow.Work {
    switch self {
    case .sleep(let delay):
      return { _ in try await clock.sleep(for: delay) }
    case .command(let command, let killAfter, let output):
      let subprocess = ExternalCommand.shell(command, killAfter: killAfter)
      return { show in
        try await ExternalCommand.run(subprocess, what: "command", output: output, show: show)
      }
    }
  }
}
