import CounterFlow
import Foundation
import LoadctlCore

// Four changes 20 ms apart, then one save of the final value, 100 ms after the last change.
// `--record FILE` writes the run's happenings to FILE, for a test to replay
// (Tests/CounterFlowTests/Recordings/burst.jsonl is such a recording).
let arguments = CommandLine.arguments.dropFirst()
var recordPath: String?
if let flag = arguments.first {
  guard flag == "--record", arguments.count == 2, let path = arguments.last else {
    FileHandle.standardError.write(Data("Error: usage: counter-flow [--record FILE]\n".utf8))
    exit(64)
  }
  recordPath = path
}

let clock = ContinuousClock()
let counter = Counter(clock: clock, saveDelay: .milliseconds(100))
let store = Store(initialState: Counter.State(), reducer: counter.reduce)
let journal: StoreFileJournal<Counter.Action>?
do {
  journal = try recordPath.map { path in
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys  // the same text for the same happening
    return try StoreFileJournal<Counter.Action>(path: path, clock: clock) {
      try Array(encoder.encode($0))
    }
  }
} catch {
  FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
  exit(73)
}

let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
async let typed: Void = {
  for (index, action) in [Counter.Action.increment, .increment, .decrement, .increment]
    .enumerated()
  {
    if index > 0 { try? await clock.sleep(for: .milliseconds(20)) }
    input.yield(action)
  }
  input.finish()
}()

let result = await store.run(inputs: inputs, journal: journal) { event in
  switch event {
  case .transition(let action, _, let state, _):
    print("\(action): count \(state.count), saved \(state.saved.map(String.init) ?? "-")")
  case .effectFinished(let effect, let outcome):
    print("  \(effect.label)#\(effect.serial) \(outcome)")
  default:
    break
  }
}
await typed
print("run ended (\(result.reason)): saved \(result.state.saved.map(String.init) ?? "-")")
do {
  try journal?.close()
} catch {
  FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
  exit(74)
}
