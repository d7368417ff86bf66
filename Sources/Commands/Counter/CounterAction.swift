import LoadctlCore

/// What can happen to the counter: the TCA effect example's buttons, its response action, and stopping.
package enum CounterAction: Sendable, Equatable, ReportableAction {
  /// The `+` button.
  case increment
  /// The `-` button.
  case decrement
  /// The "increment after a delay" button: starts an effect on the clock.
  case delayedIncrement
  /// Sent by the delayed increment's effect when its work is done (the delay has passed, or
  /// the `--exec` command exited 0).
  case incrementResponse
  /// Sent by the delayed increment's effect when its work failed (the `--exec` command could
  /// not start, exited non-zero or was killed by a signal), with why; the count stays.
  case delayedIncrementFailed(String)
  /// Sent by a running `--exec` command's effect for the lines one read of its output brought
  /// (or what of it was not shown); the state stays, each line is shown attributed to the
  /// effect.
  case output(ExternalCommand.Output)
  /// Cancels every delayed increment in flight (an input line, not a seed button).
  case cancel
  /// The process is stopping (Ctrl-C, SIGTERM): like `cancel`, but never refused.
  case interrupt

  package var name: String {
    switch self {
    case .increment: "increment"
    case .decrement: "decrement"
    case .delayedIncrement: "delayed_increment"
    case .incrementResponse: "increment_response"
    case .delayedIncrementFailed: "delayed_increment_failed"
    case .output: "output"
    case .cancel: "cancel"
    case .interrupt: "interrupt"
    }
  }

  /// A failure's `message`, as an extra JSON field.
  package var fields: [(String, JSONValue)] {
    switch self {
    case .delayedIncrementFailed(let message): [("message", .string(message))]
    case .output(let output): output.fields
    default: []
    }
  }

  /// The Swift case name, as TCA's `_printChanges` would show it.
  package var summary: String {
    switch self {
    case .delayedIncrement: "delayedIncrement"
    case .incrementResponse: "incrementResponse"
    case .delayedIncrementFailed: "delayedIncrementFailed"
    default: name
    }
  }

  /// The words accepted for each action, in arguments and `--input` lines (any letter case).
  package static let spellings: [(words: [String], action: CounterAction)] = [
    (["+", "inc", "increment"], .increment),
    (["-", "dec", "decrement"], .decrement),
    (["d", "delayed", "delayed_increment", "delayedincrement"], .delayedIncrement),
    (["c", "cancel"], .cancel),
  ]

  /// Parses one action word: `+`/`inc`/`increment`, `-`/`dec`/`decrement`, `d`/`delayed`,
  /// `c`/`cancel`.
  package static func parse(_ text: String) -> Result<CounterAction, LineProblem> {
    let word = text.lowercasedWord
    if let match = spellings.first(where: { $0.words.contains(word) }) {
      return .success(match.action)
    }
    let sentByLoadctl = [
      "increment_response", "incrementresponse", "delayed_increment_failed",
      "delayedincrementfailed", "interrupt", "output",
    ]
    let hint =
      sentByLoadctl.contains(word)
      ? "'\(text)' is sent by loadctl itself, not by input"
      : "unknown action '\(text)'"
    return .failure(
      LineProblem("\(hint) (expected +, -, d or c; or inc, dec, delayed, cancel)"))
  }
}
