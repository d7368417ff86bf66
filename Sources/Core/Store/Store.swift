/// Runs a flow — a state, a pure reducer and the effects it returns — under structured concurrency.
///
/// Everything a run starts is a child of the task that calls ``run(inputs:stopWhenIdle:onCancel:observe:)``:
/// cancelling that task cancels every effect, and when `run` returns nothing it started is still
/// running, so no action can arrive afterwards. Actions from inputs and from effects go through
/// one mailbox and are applied one at a time, in order, and each applied action is reported to
/// the observer before the next one is taken.
///
/// ```swift
/// let store = Store(initialState: Counter.State()) { state, action in
///   Counter.reduce(into: &state, action: action)
/// }
/// let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
/// input.yield(.increment)
/// input.yield(.delayedIncrement)
/// input.finish()
/// let result = await store.run(inputs: inputs) { event in renderer.render(event) }
/// ```
public struct Store<State: Sendable, Action: Sendable>: Sendable {
  /// The pure step function: apply an action, return the work it asks for.
  public typealias Reducer = @Sendable (inout State, Action) -> Effect<Action>

  /// The state the run starts from.
  public let initialState: State
  /// The flow's reducer.
  public let reducer: Reducer

  /// Creates a store; nothing runs until ``run(inputs:stopWhenIdle:onCancel:observe:)``.
  public init(initialState: State, reducer: @escaping Reducer) {
    self.initialState = initialState
    self.reducer = reducer
  }

  /// Applies actions from `inputs` and from effects until the run ends.
  ///
  /// - Parameters:
  ///   - inputs: Actions from outside (arguments, input lines, keys), applied as they arrive.
  ///   - stopWhenIdle: End once `inputs` has finished and no effect is running or waiting.
  ///   - onCancel: An action applied when the calling task is cancelled, so the flow can make its
  ///     final transition (for example `loading → idle`); effects it returns are not run.
  ///   - observe: Called synchronously for each step, in order; it must not block.
  /// - Returns: The last state and why the run ended.
  public func run<Inputs: AsyncSequence<Action, Never> & Sendable>(
    inputs: Inputs,
    stopWhenIdle: Bool = true,
    onCancel: Action? = nil,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await withoutActuallyEscaping(observe) { observe in
      await loop(inputs: inputs, stopWhenIdle: stopWhenIdle, onCancel: onCancel, observe: observe)
    }
  }

  private func loop<Inputs: AsyncSequence<Action, Never> & Sendable>(
    inputs: Inputs,
    stopWhenIdle: Bool,
    onCancel: Action?,
    observe: @escaping (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    let (mailbox, inbox) = AsyncStream<Message>.makeStream()
    return await withDiscardingTaskGroup { group in
      group.addTask {
        for await action in inputs { inbox.yield(.input(action)) }
        inbox.yield(.inputFinished)
      }
      var loop = RunLoop(state: initialState, reducer: reducer, inbox: inbox, observe: observe)
      var messages = mailbox.makeAsyncIterator()
      var reason = StoreStopReason.cancelled
      while true {
        if loop.finishRequested {
          reason = .finished
          break
        }
        if stopWhenIdle, loop.isIdle {
          reason = .idle
          break
        }
        // Once cancelled, apply nothing but `onCancel`, not even what is still buffered: a
        // cancellation handler running on another thread may have sent it after the fact.
        guard let message = await messages.next(), !Task.isCancelled else { break }
        loop.handle(message, group: &group)
      }
      if reason == .cancelled, let onCancel {
        loop.applyFinal(onCancel)
      }
      loop.cancelAll()
      inbox.finish()
      group.cancelAll()
      return StoreResult(state: loop.state, reason: reason)
    }
  }

  enum Message: Sendable {
    case input(Action)
    case inputFinished
    case effectAction(Action, serial: Int)
    case effectFinished(serial: Int, EffectOutcome)
    case cancelRequest(EffectID)
  }
}

extension Store {
  /// The mutable side of one run: the state, the effect registry, and the reporting.
  struct RunLoop: ~Copyable {
    var state: State
    let reducer: Reducer
    let inbox: AsyncStream<Message>.Continuation
    let observe: (StoreEvent<State, Action>) -> Void
    var registry = EffectRegistry<Action>()
    var handles: [Int: EffectHandle] = [:]
    var immediate: [(Action, EffectInfo?)] = []
    var inputFinished = false
    var finishRequested = false

    var isIdle: Bool { inputFinished && registry.inFlightCount == 0 && immediate.isEmpty }

    mutating func handle(_ message: Message, group: inout DiscardingTaskGroup) {
      switch message {
      case .input(let action):
        apply(action, from: nil, group: &group)
      case .inputFinished:
        inputFinished = true
      case .effectAction(let action, let serial):
        guard !registry.isCancelled(serial) else { return }
        let info = registry.runningEffects.first { $0.serial == serial }
        apply(action, from: info, group: &group)
      case .effectFinished(let serial, let outcome):
        handles[serial] = nil
        perform(registry.finished(serial, outcome: outcome), group: &group)
      case .cancelRequest(let id):
        perform(registry.cancel(id: id), group: &group)
      }
      while !immediate.isEmpty, !finishRequested {
        let (action, info) = immediate.removeFirst()
        apply(action, from: info, group: &group)
      }
    }

    mutating func apply(
      _ action: Action, from info: EffectInfo?, group: inout DiscardingTaskGroup
    ) {
      let old = state
      let effect = reducer(&state, action)
      if let reason = effect.ignoredReason {
        observe(.ignored(action: action, reason: reason, state: state))
      } else {
        observe(.transition(action: action, from: old, to: state, effect: info))
      }
      schedule(effect, from: info, group: &group)
    }

    /// Applies the shutdown action; the run is ending, so its effects are not started.
    mutating func applyFinal(_ action: Action) {
      let old = state
      let effect = reducer(&state, action)
      if let reason = effect.ignoredReason {
        observe(.ignored(action: action, reason: reason, state: state))
      } else {
        observe(.transition(action: action, from: old, to: state, effect: nil))
      }
    }

    mutating func cancelAll() {
      for command in registry.cancelAll() {
        switch command {
        case .cancel(let info):
          handles[info.serial]?.cancel()
          observe(.effectFinished(info, .cancelled))
        case .report(let report):
          emit(report)
        case .start:
          break
        }
      }
    }

    private mutating func schedule(
      _ effect: Effect<Action>, from info: EffectInfo?, group: inout DiscardingTaskGroup
    ) {
      switch effect.kind {
      case .none, .ignored:
        break
      case .finishRun:
        finishRequested = true
      case .send(let action):
        immediate.append((action, info))
      case .merge(let effects):
        for effect in effects { schedule(effect, from: info, group: &group) }
      case .cancel(let id):
        perform(registry.cancel(id: id), group: &group)
      case .cancellable(let inner, let id, let policy):
        perform(
          registry.register(inner, id: id, policy: policy, name: inner.name), group: &group)
      case .run(let name, _, _):
        perform(registry.register(effect, id: nil, policy: nil, name: name), group: &group)
      case .concatenate:
        perform(registry.register(effect, id: nil, policy: nil, name: nil), group: &group)
      }
    }

    private mutating func perform(
      _ commands: [EffectRegistry<Action>.Command], group: inout DiscardingTaskGroup
    ) {
      for command in commands {
        switch command {
        case .start(let info, let effect):
          start(info, effect, group: &group)
        case .cancel(let info):
          handles[info.serial]?.cancel()
        case .report(let report):
          emit(report)
        }
      }
    }

    private func emit(_ report: EffectRegistry<Action>.Report) {
      switch report {
      case .queued(let info): observe(.effectQueued(info))
      case .dropped(let info): observe(.effectDropped(info))
      case .finished(let info, let outcome): observe(.effectFinished(info, outcome))
      }
    }

    private mutating func start(
      _ info: EffectInfo, _ effect: Effect<Action>, group: inout DiscardingTaskGroup
    ) {
      let handle = EffectHandle()
      handles[info.serial] = handle
      observe(.effectStarted(info))
      let inbox = self.inbox
      let serial = info.serial
      group.addTask {
        let runner = EffectRunner<Action>(
          send: Send { inbox.yield(.effectAction($0, serial: serial)) },
          requestCancel: { inbox.yield(.cancelRequest($0)) }
        )
        let outcome = await EffectContext.$current.withValue(info) {
          await handle.run { await runner.perform(effect) }
        }
        inbox.yield(.effectFinished(serial: serial, outcome))
      }
    }
  }
}

extension Effect {
  /// The reason when this effect (or a part of a merge) says the action was ignored.
  var ignoredReason: String? {
    switch kind {
    case .ignored(let reason): reason
    case .merge(let effects): effects.lazy.compactMap(\.ignoredReason).first
    default: nil
    }
  }

  /// The name of a `run` effect, for events.
  var name: String? {
    switch kind {
    case .run(let name, _, _): name
    case .cancellable(let inner, _, _): inner.name
    default: nil
    }
  }
}
