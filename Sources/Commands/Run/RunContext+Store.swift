import LoadctlCore

extension RunContext {
  /// Runs `store` with this run's output: events go to stdout in bursts, flushed whenever the
  /// whole run is about to wait — its executor has run out of work (see ``RunExecutor`` and
  /// `VirtualDriver`) — rather than after every event.
  ///
  /// The store's loop takes the input's ready actions itself (see ``ReadyIterator``).
  package func run<State: Sendable, Action: Sendable>(
    _ store: Store<State, Action>, inputs: AnyInput<Action>, onCancel: Action?,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await output.holdingFlushes {
      await store.run(inputs: inputs, onCancel: onCancel, observe: observe)
    }
  }

  /// Like the other `run`, with a journal told of every step (a recording's), whose type the
  /// store's run is specialised for.
  package func run<State: Sendable, Action: Sendable, Journal: StoreJournal<Action>>(
    _ store: Store<State, Action>, inputs: AnyInput<Action>, onCancel: Action?,
    journal: Journal, observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await output.holdingFlushes {
      await store.run(inputs: inputs, onCancel: onCancel, journal: journal, observe: observe)
    }
  }
}
