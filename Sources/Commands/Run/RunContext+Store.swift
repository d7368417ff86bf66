import LoadctlCore

extension RunContext {
  /// Runs `store` with this run's output: events go to stdout in bursts, flushed whenever the
  /// whole run is about to wait — its executor has run out of work (see ``RunExecutor`` and
  /// `VirtualDriver`) — rather than after every event.
  package func run<
    State: Sendable, Action: Sendable, Inputs: AsyncSequence<Action, Never> & Sendable
  >(
    _ store: Store<State, Action>, inputs: Inputs, onCancel: Action?,
    journal: (any StoreJournal<Action>)? = nil, observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await output.holdingFlushes {
      await store.run(inputs: inputs, onCancel: onCancel, journal: journal, observe: observe)
    }
  }
}
