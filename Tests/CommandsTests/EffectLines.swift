import LoadctlCore

/// `start #1`, `queue #2`, `drop #3`, `end #1 cancelled`: a store's effect event as a short line,
/// for tests that compare effect lifecycles; `nil` for a transition or an ignored action.
func effectLine<State, Action>(_ event: StoreEvent<State, Action>) -> String? {
  switch event {
  case .effectStarted(let info): "start #\(info.serial)"
  case .effectQueued(let info): "queue #\(info.serial)"
  case .effectDropped(let info): "drop #\(info.serial)"
  case .effectFinished(let info, let outcome): "end #\(info.serial) \(outcome.name)"
  case .transition, .ignored: nil
  }
}
