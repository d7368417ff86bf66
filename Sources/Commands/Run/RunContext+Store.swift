import LoadctlCore

extension RunContext {
  /// Runs `store` with this run's output: events go to stdout in bursts, flushed whenever the
  /// run is about to wait for its next action (an input line, the clock or an effect).
  package func run<
    State: Sendable, Action: Sendable, Inputs: AsyncSequence<Action, Never> & Sendable
  >(
    _ store: Store<State, Action>, inputs: Inputs, onCancel: Action?,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await output.holdingFlushes {
      await store.run(
        inputs: inputs, onCancel: onCancel, willWait: { output.flush() }, observe: observe)
    }
  }
}
