import CounterFlow
import LoadctlCore

// Four quick changes, then one save of the final value, 100 ms after the last change.
let counter = Counter(clock: ContinuousClock(), saveDelay: .milliseconds(100))
let store = Store(initialState: Counter.State(), reducer: counter.reduce)
let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
for action: Counter.Action in [.increment, .increment, .decrement, .increment] {
  input.yield(action)
}
input.finish()

let result = await store.run(inputs: inputs) { event in
  switch event {
  case .transition(let action, _, let state, _):
    print("\(action): count \(state.count), saved \(state.saved.map(String.init) ?? "-")")
  case .effectFinished(let effect, let outcome):
    print("  \(effect.label)#\(effect.serial) \(outcome)")
  default:
    break
  }
}
print("run ended (\(result.reason)): saved \(result.state.saved.map(String.init) ?? "-")")
