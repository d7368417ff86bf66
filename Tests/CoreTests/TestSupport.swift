import LoadctlCore
import Synchronization

/// A thread-safe list that tests append to from effects, observers and tasks.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])

  init() {}

  func append(_ value: Value) { storage.withLock { $0.append(value) } }

  /// Everything appended so far, oldest first.
  var values: [Value] { storage.withLock { $0 } }

  /// Returns everything appended since the last call and forgets it.
  func take() -> [Value] {
    storage.withLock { values in
      defer { values.removeAll() }
      return values
    }
  }
}

/// One line per store event, so a test can compare a whole run with one `#expect`.
///
/// `apply a`, `ignore a: reason`, `start label#1`, `queue label#2`, `drop label#3`,
/// `end label#1 cancelled`, `end label#1 failed(message)`.
func describe<State, Action>(_ event: StoreEvent<State, Action>) -> String {
  switch event {
  case .transition(let action, _, _, _): "apply \(action)"
  case .ignored(let action, let reason, _): "ignore \(action): \(reason)"
  case .effectQueued(let info): "queue \(tag(info))"
  case .effectStarted(let info): "start \(tag(info))"
  case .effectDropped(let info): "drop \(tag(info))"
  case .effectFinished(let info, .failed(let message)): "end \(tag(info)) failed(\(message))"
  case .effectFinished(let info, let outcome): "end \(tag(info)) \(outcome.name)"
  }
}

private func tag(_ info: EffectInfo) -> String { "\(info.label)#\(info.serial)" }

/// Runs `Store.run` on a test clock and records every event as a line of ``trace``.
///
/// For tests about the runtime itself, where `TestStore`'s exhaustive checking is in the way.
/// Effects may append their own lines to the same `trace` to prove an ordering. Every event
/// observed after `run` returned is also kept in ``eventsAfterReturn``, which must stay empty.
final class StoreHarness<State: Sendable, Action: Sendable>: Sendable {
  private struct Log {
    var state: State
    var result: StoreResult<State>?
    var eventsAfterReturn: [String] = []
  }

  private final class Box: Sendable {
    let mutex: Mutex<Log>
    init(_ log: Log) { mutex = Mutex(log) }
  }

  let clock: VirtualClock
  let trace: Recorder<String>
  let task: Task<StoreResult<State>, Never>
  private let input: AsyncStream<Action>.Continuation
  private let box: Box

  init(
    initialState: State, clock: VirtualClock, stopWhenIdle: Bool = false, onCancel: Action? = nil,
    trace: Recorder<String> = Recorder(), journal: (any StoreJournal<Action>)? = nil,
    reducer: @escaping Store<State, Action>.Reducer
  ) {
    self.clock = clock
    self.trace = trace
    let (inputs, input) = AsyncStream<Action>.makeStream()
    self.input = input
    let box = Box(Log(state: initialState))
    self.box = box
    let store = Store(initialState: initialState, reducer: reducer)
    task = clock.launch {
      let result = await store.run(
        inputs: inputs, stopWhenIdle: stopWhenIdle, onCancel: onCancel, journal: journal
      ) { event in
        let line = describe(event)
        box.mutex.withLock { log in
          if log.result != nil { log.eventsAfterReturn.append(line) }
          if case .transition(_, _, let to, _) = event { log.state = to }
        }
        trace.append(line)
      }
      box.mutex.withLock { $0.result = result }
      return result
    }
  }

  /// Feeds `action` to the store as an input and runs everything it triggers.
  func send(_ action: Action) {
    input.yield(action)
    clock.drain()
  }

  /// Feeds `action` to the store without running anything yet.
  func yield(_ action: Action) {
    input.yield(action)
  }

  /// Ends the inputs sequence.
  func finishInputs() {
    input.finish()
    clock.drain()
  }

  /// Lines recorded since the last call.
  func take() -> [String] { trace.take() }

  /// The state after the last transition.
  var state: State { box.mutex.withLock { $0.state } }

  /// What `run` returned, once it has.
  var result: StoreResult<State>? { box.mutex.withLock { $0.result } }

  /// Events observed after `run` had returned; must stay empty.
  var eventsAfterReturn: [String] { box.mutex.withLock { $0.eventsAfterReturn } }

  /// Cancels the task running the store and runs what the cancellation unblocks.
  func cancel() {
    task.cancel()
    clock.drain()
  }
}
