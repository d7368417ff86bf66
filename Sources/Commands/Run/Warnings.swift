import LoadctlCore

/// The lints a run reports, and which of them end it with ``ExitStatus/lintDenied``: `--allow`
/// and `--deny`, typed once.
package struct LintPolicy: Sendable, Equatable {
  /// Lints never reported.
  package var allowed: Set<Lint> = []
  /// Lints that, once raised, end the run with ``ExitStatus/lintDenied`` (when it would have
  /// ended with 0).
  package var denied: Set<Lint> = []

  package init(allowed: Set<Lint> = [], denied: Set<Lint> = []) {
    self.allowed = allowed
    self.denied = denied
  }
}

/// Reports the lints a run raises, as they are raised: in text mode one `warning[NAME]:` line on
/// stderr per lint and subject (a repeat is counted, not printed again); with `--json` a `warning`
/// event the first time; either way an instant on `--trace`. The counts go into `end`.
package final class Warnings: Sendable {
  private struct State {
    var seen: Set<Key> = []
    var counts: [Lint: Int] = [:]
  }

  private struct Key: Hashable {
    var lint: Lint
    var subject: String
  }

  private let policy: LintPolicy
  private let output: EventOutput
  private let errors: OutputWriter
  private let state = Locked(State())
  private let recorder: RunRecorder?

  /// - Parameter recorder: Records a lint raised outside the flow's steps (by a command's reader
  ///   thread, by the input), which a replay raises again.
  package init(
    policy: LintPolicy, output: EventOutput, errors: OutputWriter, recorder: RunRecorder? = nil
  ) {
    self.recorder = recorder
    self.policy = policy
    self.output = output
    self.errors = errors
  }

  /// Whether every lint is allowed (`--allow all`): nothing would be reported, so the run need
  /// not evaluate any.
  package var allSilenced: Bool { policy.allowed.isSuperset(of: Lint.all) }

  /// Reports `warning`, unless its lint is allowed or it is a repeat (then only counted).
  package func raise(_ warning: LintWarning) {
    // A lint raised in a step is the flow's own: its replay raises it again by itself.
    if let recorder, RecordedTime.current == nil {
      recorder.warning(warning) { report(warning) }
    } else {
      report(warning)
    }
  }

  private func report(_ warning: LintWarning) {
    guard !policy.allowed.contains(warning.lint) else { return }
    let first = state.withLock { state in
      state.counts[warning.lint, default: 0] += 1
      return state.seen.insert(Key(lint: warning.lint, subject: warning.subject)).inserted
    }
    guard first else { return }
    output.emit(
      "warning",
      [
        ("lint", .string(warning.lint.name)), ("subject", .string(warning.subject)),
        ("message", .string(warning.message)),
      ],
      kind: .problem, text: nil)
    guard !output.json else { return }
    errors.write("warning[\(warning.lint.name)]: \(warning.message.escapingControlCharacters)\n")
    errors.flush()
  }

  /// How many times each lint was raised, in ``Lint/all``'s order; empty when none was.
  package var counts: [(Lint, Int)] {
    let counts = state.withLock { $0.counts }
    return Lint.all.compactMap { lint in counts[lint].map { (lint, $0) } }
  }

  /// Whether a denied lint was raised.
  package var denied: Bool {
    let raised = state.withLock { Set($0.counts.keys) }
    return !raised.isDisjoint(with: policy.denied)
  }
}

extension LintWarning {
  /// The process lint a subprocess runner's notice raises.
  package init(_ notice: SubprocessNotice) {
    switch notice {
    case .neededKill(let command, let grace):
      self.init(
        .needsSigkill, subject: command,
        message:
          "command '\(command)' ignored SIGTERM and was killed after \(formatDuration(grace)) "
          + "(--kill-after): make it exit on SIGTERM, or raise --kill-after if it needs longer")
    case .leftBehind(let command, let count):
      self.init(
        .leftBehind, subject: command,
        message:
          "command '\(command)' left \(count) process\(count == 1 ? "" : "es") running when it "
          + "ended, torn down now: wait for what it starts in the background, or do not start it")
    }
  }
}
