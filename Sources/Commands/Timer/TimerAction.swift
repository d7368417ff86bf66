import LoadctlCore

/// What can happen to the timer: the TCA `Timers` example's actions (`toggle`, `tick`, `stop` for its
/// `onDisappear`), plus `start` and `reset`.
package enum TimerAction: Sendable, Equatable, ReportableAction {
  /// The Start/Stop button.
  case toggle
  /// Start unless running (the run's first action, and an input line).
  case start
  /// Stop unless stopped; SwiftUI's `onDisappear`, and what Ctrl-C sends.
  case stop
  /// Back to zero ticks; a running timer keeps running.
  case reset
  /// Sent by the timer effect at each deadline.
  case tick(Tick)

  /// How a tick arrived: from Core's `ClockTimer`.
  package struct Tick: Sendable, Equatable {
    /// Deadlines passed without a tick because the consumer was more than an interval late
    /// (`ClockTimer`'s `skip` policy); they still count as elapsed ticks.
    package var missed: Int
    /// How long after its deadline the tick was delivered.
    package var lateness: Duration

    package init(missed: Int = 0, lateness: Duration = .zero) {
      self.missed = missed
      self.lateness = lateness
    }

    /// A tick exactly on time, as a test clock delivers them.
    package static let onTime = Tick()
  }

  package var name: String {
    switch self {
    case .toggle: "toggle"
    case .start: "start"
    case .stop: "stop"
    case .reset: "reset"
    case .tick: "tick"
    }
  }

  package var fields: [(String, JSONValue)] {
    guard case .tick(let tick) = self else { return [] }
    return [
      ("missed", .int(tick.missed)),
      ("lateness_ms", .double(EventOutput.milliseconds(tick.lateness))),
    ]
  }

  /// Parses an `--input` line: `toggle`/`t`, `start`/`s`, `stop`/`p`, `reset`/`r`.
  package static func parse(_ text: String) -> Result<TimerAction, LineProblem> {
    switch text.lowercasedWord {
    case "toggle", "t": return .success(.toggle)
    case "start", "s": return .success(.start)
    case "stop", "p": return .success(.stop)
    case "reset", "r": return .success(.reset)
    case "tick":
      return .failure(
        LineProblem(
          "'tick' is sent by the timer, not by input (expected toggle, start, stop or reset)"
        ))
    default:
      return .failure(
        LineProblem("unknown action '\(text)' (expected toggle, start, stop or reset)"))
    }
  }
}
