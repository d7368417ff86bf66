import LoadctlCore

/// What the run's observers — `--trace`, `--timeline` and the spinner — learn from one printed
/// event.
///
/// The event's JSON fields travel beside it only as the trace's `args`: every decision an
/// observer makes (which span opens or closes, what a point is called) reads this value.
package enum ObservedEvent: Sendable, Equatable {
  /// An effect began: a span opens on `track` (the effect's id, else its label) until the
  /// effect with the same `serial` ends.
  case effectStarted(serial: Int, label: String, track: String)
  /// An effect ended, and how.
  case effectFinished(serial: Int, outcome: EffectOutcome)
  /// Any other event: a point in time, with the name the trace shows.
  case instant(String)

  /// `effect`'s start.
  package static func started(_ effect: EffectInfo) -> ObservedEvent {
    .effectStarted(
      serial: effect.serial, label: effect.label, track: effect.id?.name ?? effect.label)
  }

  /// A transition as a point: `load: idle → loading` when both states name their case (the
  /// `state` field of an enum-like snapshot), else the action's name.
  package static func transition(_ action: String, from: JSONValue, to: JSONValue)
    -> ObservedEvent
  {
    guard let before = from["state"], let after = to["state"] else { return .instant(action) }
    let name = { (value: JSONValue) in
      if case .string(let text) = value { return text }
      return value.serialized
    }
    return .instant("\(action): \(name(before)) → \(name(after))")
  }
}
