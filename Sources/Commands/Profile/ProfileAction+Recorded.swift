import LoadctlCore

/// A profile action in a recording: `{"action":"load"}`; a loaded profile keeps its name and
/// every field as read, `{"action":"load_response","ok":true,"name":"Taylor","fields":{…}}`, and
/// a failure its message, `{"action":"load_response","ok":false,"message":"timed out"}`; stderr
/// lines as the counter's, `{"action":"output","stream":"stderr","line":"…"}`.
///
/// The fields sit a few levels down in a recording line, which `Recording.maxDepth` allows for,
/// so every profile a run can read (`JSONParser`'s default depth) replays.
extension ProfileAction: RecordableAction {
  /// Every case as written, for ``RecordedFields/unknownAction(expected:)``.
  private static let recordedNames = [
    "load", "retry", "cancel", "quit", "load_response", "auto_retry", "interrupt", "output",
  ]

  package var recorded: JSONValue {
    if case .output = self { return .object([("action", .string(name))] + fields) }
    guard case .loadResponse(let result) = self else {
      return .object([("action", .string(name))])
    }
    switch result {
    case .success(let profile):
      return .object([
        ("action", .string(name)), ("ok", true), ("name", .string(profile.name)),
        ("fields", profile.fields),
      ])
    case .failure(let failure):
      return .object([
        ("action", .string(name)), ("ok", false), ("message", .string(failure.message)),
      ])
    }
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<ProfileAction, LineProblem> {
    Result { () throws(LineProblem) -> ProfileAction in
      let fields = try RecordedFields(value, of: "profile")
      switch fields.action {
      case "load": return .load
      case "retry": return .retry
      case "cancel": return .cancel
      case "quit": return .quit
      case "load_response":
        guard try fields.bool("ok") else {
          return .loadResponse(.failure(LoadFailure(try fields.string("message"))))
        }
        let profile = Profile(name: try fields.string("name"), fields: try fields.value("fields"))
        return .loadResponse(.success(profile))
      case "auto_retry": return .autoRetry
      case "interrupt": return .interrupt
      case "output": return .output(try ExternalCommand.Output(recorded: fields))
      default: throw fields.unknownAction(expected: recordedNames)
      }
    }
  }
}
