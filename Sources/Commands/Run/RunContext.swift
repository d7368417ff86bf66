import LoadctlCore

/// What a subcommand's flow gets from the runtime: where to print, which clock, how to read input.
package struct RunContext: Sendable {
  /// The event stream (text or JSON Lines) on stdout.
  package let output: EventOutput
  /// The clock every wait of the flow uses.
  package let clock: any Clock<Duration>
  /// Time since the run started on `clock`.
  package let elapsed: @Sendable () -> Duration
  /// Problems for people, on stderr.
  package let errors: OutputWriter
  /// The clock and the terminal's part in the run.
  package let mode: RunMode
  /// Whether the run is on virtual time (`--clock virtual`).
  package var isVirtual: Bool { mode.isVirtual }
  /// Interactive keys, when stdin is a terminal.
  package let terminal: TerminalSession
  /// The lints the run raised, reported as they are.
  package let warnings: Warnings
  /// `--record FILE`, when the run is recorded.
  package let recorder: RunRecorder?
  /// The recording this run replays (`loadctl replay`), if it is one.
  package let replay: ReplaySession?
  /// When the run was suspended by Ctrl-Z, for the `late` lints.
  package let suspensions: Suspensions
  private let rejected: RejectCounter

  /// - Parameters:
  ///   - lints: `--allow` and `--deny`.
  ///   - recorder: Where the run is recorded, if it is.
  ///   - replay: The recording the run replays, if it is a replay.
  package init(
    output: EventOutput, clock: any Clock<Duration>, elapsed: @escaping @Sendable () -> Duration,
    errors: OutputWriter, mode: RunMode = .continuous, terminal: TerminalSession? = nil,
    lints: LintPolicy = LintPolicy(), recorder: RunRecorder? = nil, replay: ReplaySession? = nil,
    suspensions: Suspensions = Suspensions()
  ) {
    self.replay = replay
    self.suspensions = suspensions
    self.warnings = Warnings(policy: lints, output: output, errors: errors, recorder: recorder)
    self.recorder = recorder
    self.terminal =
      terminal ?? TerminalSession(isInteractive: false, interrupt: {}, quit: {}, legend: { _ in })
    self.output = output
    self.clock = clock
    self.elapsed = elapsed
    self.errors = errors
    self.mode = mode
    self.rejected = RejectCounter()
  }

  /// The lines of an input file descriptor, as the run's time model needs them.
  ///
  /// On real time they stream as they arrive (`tail -f`). On virtual time the whole input is read
  /// first, so the arrival time of bytes can never decide the output: each line then applies
  /// exactly when its `+DURATION`/`@DURATION` prefix says.
  /// A regular file is read on the consumer's task as its lines are used (``FileLines``): it can
  /// wait, and nothing reads ahead of the flow.
  package func lines(fd: Int32, closeWhenDone: Bool) -> RawLines {
    if FileLines.isRegularFile(fd) { return RawLines(file: fd, closeWhenDone: closeWhenDone) }
    guard isVirtual else { return LineSource.lines(fd: fd, closeWhenDone: closeWhenDone) }
    return LineSource.readAll(fd: fd, closeWhenDone: closeWhenDone)
  }

  /// How many input lines were rejected; any makes the run end with status 65.
  package var rejectedCount: Int { rejected.count }

  /// Reports a bad input line on stderr and as an `input_rejected` event, and counts it.
  package func reject(_ error: InputError) {
    guard let recorder else { return report(error) }
    recorder.rejected(error) { report(error) }
  }

  private func report(_ error: InputError) {
    rejected.increment()
    output.emit(
      "input_rejected", [("line", .int(error.line)), ("message", .string(error.message))],
      kind: .problem, text: nil)
    output.flush()
    errors.write(ErrorLine.text("input \(error.description)"))
    errors.flush()
  }

  /// Prints one `Error:` line on stderr.
  package func error(_ message: String) {
    errors.write(ErrorLine.text(message))
    errors.flush()
  }

  /// When this run's input lines apply: the run's clock and time since its start.
  package var lineClock: LineClock {
    LineClock(clock: clock, elapsed: elapsed) { [warnings, suspensions, elapsed] line, lateness in
      // A line that waited through a Ctrl-Z and `fg` waited for the person.
      guard !suspensions.wereSuspended(within: lateness, now: elapsed()) else { return }
      warnings.raise(
        LintWarning(
          .late, subject: "input",
          message:
            "input line \(line) applied \(EventOutput.milliseconds(lateness)) ms after its time "
            + "(more than \(formatDuration(LineClock.lateAfter))): "
            + suspensions.lateCause(
              within: lateness, now: elapsed(),
              busy: "the run is too busy to keep the script's rhythm")))
    }
  }

  /// The values of `lines`, each parsed with `parse` and released on time, bad lines reported.
  package func input<Value: Sendable>(
    _ lines: RawLines, parse: @escaping @Sendable (String) -> Result<Value, LineProblem>
  ) -> TimedLines<Value> {
    TimedLines(lines: lines, clock: lineClock, parse: parse, reject: { self.reject($0) })
  }
}

/// Counts rejected input lines across tasks.
final class RejectCounter: Sendable {
  private let value = Locked(0)
  var count: Int { value.withLock { $0 } }
  func increment() { value.withLock { $0 += 1 } }
}

/// How a flow ended on its own, and what to say about it in the `end` event.
package struct FlowEnd: Sendable {
  /// Whether the flow reached the result it was run for.
  package enum Status: Sendable {
    /// Exit status 0.
    case completed
    /// The flow settled in a failed state: exit status 1.
    case failed
  }

  package var status: Status
  /// Fields added to the `end` event (e.g. the final state).
  package var fields: [(String, JSONValue)]
  /// The text-mode result line, shown even with `--quiet`.
  package var summary: String?
  /// The exit status, when the flow says it instead of `status` (130 for a dismissed picker).
  package var exitStatus: Int32?

  package init(status: Status, fields: [(String, JSONValue)] = [], summary: String? = nil) {
    self.status = status
    self.fields = fields
    self.summary = summary
  }
}
