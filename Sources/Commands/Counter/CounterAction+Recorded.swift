import LoadctlCore

/// A counter action in a recording: `{"action":"increment"}`, and for a failed delayed increment
/// `{"action":"delayed_increment_failed","message":"exit 1"}`, and for a line a command printed
/// `{"action":"output","stream":"stderr","line":"warning: …"}` (`"lines":[…]` for more than one).
extension CounterAction: RecordableAction {
  /// Every case as written, for ``RecordedFields/unknownAction(expected:)``.
  private static let recordedNames = [
    "increment", "decrement", "delayed_increment", "increment_response",
    "delayed_increment_failed", "output", "cancel", "interrupt",
  ]

  package var recorded: JSONValue {
    switch self {
    case .delayedIncrementFailed, .output:
      .object([("action", .string(name))] + fields)
    default:
      .object([("action", .string(name))])
    }
  }

  /// `{"action":NAME}` without a ``JSONValue`` in between: the counter records one per line.
  package func writeRecorded(to buffer: inout [UInt8]) {
    switch self {
    case .increment: buffer.append(literal: #"{"action":"increment"}"#)
    case .decrement: buffer.append(literal: #"{"action":"decrement"}"#)
    case .delayedIncrement: buffer.append(literal: #"{"action":"delayed_increment"}"#)
    case .incrementResponse: buffer.append(literal: #"{"action":"increment_response"}"#)
    case .cancel: buffer.append(literal: #"{"action":"cancel"}"#)
    case .interrupt: buffer.append(literal: #"{"action":"interrupt"}"#)
    case .delayedIncrementFailed, .output: recorded.write(to: &buffer)
    }
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<CounterAction, LineProblem> {
    Result { () throws(LineProblem) -> CounterAction in
      let fields = try RecordedFields(value, of: "counter")
      switch fields.action {
      case "increment": return .increment
      case "decrement": return .decrement
      case "delayed_increment": return .delayedIncrement
      case "increment_response": return .incrementResponse
      case "delayed_increment_failed": return .delayedIncrementFailed(try fields.string("message"))
      case "output": return .output(try ExternalCommand.Output(recorded: fields))
      case "cancel": return .cancel
      case "interrupt": return .interrupt
      default: throw fields.unknownAction(expected: recordedNames)
      }
    }
  }
}
