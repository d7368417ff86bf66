import LoadctlCommands
import LoadctlCore

/// A counter store on its own test clock, with a one-second delay and the given policy.
func makeCounterStore(_ policy: EffectPolicy = .drop) -> TestStore<CounterState, CounterAction> {
  let clock = VirtualClock()
  let flow = CounterFlow(clock: clock, delay: .seconds(1), policy: policy)
  return TestStore(initialState: CounterState(), clock: clock, reducer: flow.reduce)
}

/// `start #1`, `drop #2`, `end #1 cancelled`: a store's effect events as short lines.
func counterEffects(_ store: TestStore<CounterState, CounterAction>) -> [String] {
  store.effectEvents.map { effectLine($0) ?? "unexpected \($0)" }
}
