/// Runs a flow — a state, a pure reducer and the effects it returns — under structured concurrency.
///
/// Everything a run starts is a child of the task that calls
/// ``run(inputs:stopWhenIdle:onCancel:journal:observe:)-8235j``: cancelling that task cancels every
/// effect, and when `run` returns nothing it started is still running, so no action can arrive
/// afterwards. Actions from inputs and from effects go through one mailbox and are applied one at
/// a time, in arrival order; each applied action is reported to the observer before the next one
/// is taken.
///
/// ```swift
/// let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock).reduce)
/// let (inputs, input) = AsyncStream<Counter.Action>.makeStream()
/// input.yield(.delayedIncrement)
/// input.finish()
/// let result = await store.run(inputs: inputs) { event in print(event) }
/// ```
public struct Store<State: Sendable, Action: Sendable>: Sendable {
  /// The pure step function: apply an action, return the work it asks for.
  public typealias Reducer = @Sendable (inout State, Action) -> Effect<Action>

  @usableFromInline let initialState: State
  @usableFromInline let reducer: Reducer

  /// Creates a store; nothing runs until ``run(inputs:stopWhenIdle:onCancel:journal:observe:)-8235j``.
  public init(initialState: State, reducer: @escaping Reducer) {
    (self.initialState, self.reducer) = (initialState, reducer)
  }

  /// Applies actions from `inputs` and from effects until the run ends.
  ///
  /// A child task reads `inputs` in lockstep with the run: it reads the next action only once
  /// the previous one has been applied, so a fast input never piles up, and whatever the input
  /// reports while reading (a rejected line, say) comes after the earlier actions' steps.
  /// `inputs` must end when the calling task is cancelled (`AsyncStream`, line readers and clock
  /// waits do): the run cannot return before it has. When its iterator is a ``ReadyIterator``,
  /// the `run` below takes over: the loop takes ready actions itself.
  ///
  /// - Parameters:
  ///   - inputs: Actions from outside (arguments, input lines, keys), applied as they arrive.
  ///   - stopWhenIdle: End once `inputs` has finished and no effect is running or waiting.
  ///   - onCancel: An action applied when the calling task is cancelled, so the flow can make its
  ///     final transition (for example `loading → idle`); effects it returns are not run.
  ///   - journal: Told of every happening as it is applied, around the step that applies it, so
  ///     that ``StoreReplay`` can apply the same happenings again (see ``StoreJournal``).
  ///   - observe: Called synchronously for each step, in order; it must not block.
  /// - Returns: The last state and why the run ended.
  @inlinable public func run<Inputs: AsyncSequence<Action, Never> & Sendable>(
    inputs: Inputs,
    stopWhenIdle: Bool = true,
    onCancel: Action? = nil,
    journal: (any StoreJournal<Action>)? = nil,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await run(
      InputTurn(inputs.makeAsyncIterator(), ready: nil), stopWhenIdle: stopWhenIdle,
      onCancel: onCancel, anyJournal: journal, observe: observe)
  }

  /// The same run with a journal of a type known where it is called, so that the run is
  /// specialised for it: a journal told of every step costs no dynamic dispatch per step.
  @inlinable
  public func run<
    Inputs: AsyncSequence<Action, Never> & Sendable, Journal: StoreJournal<Action>
  >(
    inputs: Inputs,
    stopWhenIdle: Bool = true,
    onCancel: Action? = nil,
    journal: Journal,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await run(
      InputTurn(inputs.makeAsyncIterator(), ready: nil), stopWhenIdle: stopWhenIdle,
      onCancel: onCancel, journal: Optional(journal), observe: observe)
  }

  /// Applies actions from `inputs` and from effects until the run ends, taking an action that is
  /// already there on the run loop itself.
  ///
  /// As the other `run`, in lockstep, with one difference: after an input's step, when that step
  /// started no effect and no effect has anything waiting for the loop, the loop takes the next
  /// action itself if it is ready (``ReadyIterator/nextReady()``) and applies it at once — the
  /// order the input task would have handed it over in, without the two hand-overs. Only what
  /// needs a wait (a line's time, a line not read yet) goes to the input task; after a run of
  /// ready actions the loop lets the task take a turn, so the rest of the run is never starved.
  @inlinable public func run<Inputs: AsyncSequence<Action, Never> & Sendable>(
    inputs: Inputs,
    stopWhenIdle: Bool = true,
    onCancel: Action? = nil,
    journal: (any StoreJournal<Action>)? = nil,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> where Inputs.AsyncIterator: ReadyIterator {
    await run(
      InputTurn(inputs.makeAsyncIterator(), ready: { $0.nextReady() }), stopWhenIdle: stopWhenIdle,
      onCancel: onCancel, anyJournal: journal, observe: observe)
  }

  /// The same run with a journal of a type known where it is called (see the other
  /// `run(inputs:stopWhenIdle:onCancel:journal:observe:)` with a `Journal`).
  @inlinable
  public func run<
    Inputs: AsyncSequence<Action, Never> & Sendable, Journal: StoreJournal<Action>
  >(
    inputs: Inputs,
    stopWhenIdle: Bool = true,
    onCancel: Action? = nil,
    journal: Journal,
    observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> where Inputs.AsyncIterator: ReadyIterator {
    await run(
      InputTurn(inputs.makeAsyncIterator(), ready: { $0.nextReady() }), stopWhenIdle: stopWhenIdle,
      onCancel: onCancel, journal: Optional(journal), observe: observe)
  }

  /// Runs with `anyJournal` opened, so the run below has its type; without one, with none.
  @inlinable func run<Iterator: AsyncIteratorProtocol<Action, Never>>(
    _ input: InputTurn<Iterator>, stopWhenIdle: Bool, onCancel: Action?,
    anyJournal: (any StoreJournal<Action>)?, observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    guard let anyJournal else {
      return await run(
        input, stopWhenIdle: stopWhenIdle, onCancel: onCancel,
        journal: NoJournal<Action>?.none, observe: observe)
    }
    return await run(
      input, stopWhenIdle: stopWhenIdle, onCancel: onCancel, opened: anyJournal, observe: observe)
  }

  /// Gives the run below the type of a journal that came as `any StoreJournal` (opened by
  /// the call, which an optional cannot be).
  @inlinable
  func run<Iterator: AsyncIteratorProtocol<Action, Never>, Journal: StoreJournal<Action>>(
    _ input: InputTurn<Iterator>, stopWhenIdle: Bool, onCancel: Action?,
    opened journal: Journal, observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    await run(
      input, stopWhenIdle: stopWhenIdle, onCancel: onCancel, journal: Optional(journal),
      observe: observe)
  }

  @inlinable
  func run<
    Iterator: AsyncIteratorProtocol<Action, Never>, Journal: StoreJournal<Action>
  >(
    _ input: InputTurn<Iterator>, stopWhenIdle: Bool, onCancel: Action?,
    journal: Journal?, observe: (StoreEvent<State, Action>) -> Void
  ) async -> StoreResult<State> {
    let mailbox = StoreMailbox<StoreHappening<Action>>()
    let (result, ended) = await withTaskCancellationHandler {
      await withDiscardingTaskGroup { group in
        group.addTask {
          await mailbox.pumping {
            while let action = await input.next() {
              guard await mailbox.sendInput(.input(action)) else { return }
            }
            mailbox.send(.inputFinished)
          }
        }
        var loop = RunLoop(
          state: initialState, reducer: reducer, mailbox: mailbox,
          readyInput: input.ready == nil ? nil : { input.nextReady() })
        let reason = await loop.receive(
          stopWhenIdle: stopWhenIdle, group: &group, journal: journal, observe: observe)
        if reason == .cancelled {
          loop.applyCancel(onCancel, journal: journal, observe: observe)
        }
        let ended = loop.cancelAll()
        mailbox.close()
        group.cancelAll()
        return (StoreResult(state: loop.state, reason: reason), ended)
      }
    } onCancel: {
      mailbox.cancel()
    }
    // Only now, with every effect's task returned (a command's group torn down and reaped), are
    // the effects cancelled at the end reported: `effectFinished` never comes before the work
    // has stopped.
    if let journal {
      journal.closing { for (info, outcome) in ended { observe(.effectFinished(info, outcome)) } }
    } else {
      for (info, outcome) in ended { observe(.effectFinished(info, outcome)) }
    }
    return result
  }
}

extension Store {
  /// The mutable side of one run: the state, the effect registry, and the reporting.
  @usableFromInline struct RunLoop: ~Copyable {
    @usableFromInline var state: State
    @usableFromInline let reducer: Reducer
    @usableFromInline let mailbox: StoreMailbox<StoreHappening<Action>>
    @usableFromInline var registry = EffectRegistry<Action>()
    @usableFromInline var handles: [Int: EffectHandle] = [:]
    @usableFromInline var immediate: [(Action, EffectInfo?)] = []
    /// Effects the last step started, for the caller to run (or, in a replay, not to).
    @usableFromInline var starting: [(EffectInfo, Effect<Action>, EffectHandle)] = []
    @usableFromInline var inputFinished = false
    @usableFromInline var finishRequested = false
    /// Takes the input's next action when it is ready; called only while the input task waits
    /// for the loop to apply the input it sent (the loop's turn at the input).
    @usableFromInline let readyInput: (() -> Action?)?

    @inlinable init(
      state: State, reducer: @escaping Reducer, mailbox: StoreMailbox<StoreHappening<Action>>,
      readyInput: (() -> Action?)? = nil
    ) {
      self.state = state
      self.reducer = reducer
      self.mailbox = mailbox
      self.readyInput = readyInput
    }

    /// Ready inputs taken in a row before the input task gets a turn (and, with it, the other
    /// tasks of the run's executor).
    @inlinable static var readyRun: Int { 256 }

    /// Takes messages from the mailbox and applies them until the run must end.
    @inlinable nonisolated(nonsending) mutating func receive<Journal: StoreJournal<Action>>(
      stopWhenIdle: Bool, group: inout DiscardingTaskGroup,
      journal: Journal?, observe: (StoreEvent<State, Action>) -> Void
    ) async -> StoreStopReason {
      var batch: [StoreHappening<Action>] = []
      while true {
        if let reason = stopReason(stopWhenIdle: stopWhenIdle) { return reason }
        batch.removeAll(keepingCapacity: true)
        if !mailbox.take(into: &batch) { await mailbox.receive(into: &batch) }
        for (index, message) in batch.enumerated() {
          // Once cancelled, apply nothing but `onCancel`, not even what is still buffered: a
          // cancellation handler running on another thread may have sent it after the fact.
          guard !mailbox.isCancelled else { return .cancelled }
          var started = step(message, journal: journal, observe: observe)
          spawnStarting(in: &group)
          if case .input = message {
            // The loop's turn at the input: while nothing else waits for it (no later message
            // in this batch or the mailbox, no effect just started), it takes what is ready.
            if readyInput != nil, index == batch.count - 1 {
              var taken = 0
              while taken < Self.readyRun, !started, !finishRequested, !mailbox.isCancelled,
                !mailbox.hasMessages, let action = readyInput?()
              {
                started = step(.input(action), journal: journal, observe: observe)
                spawnStarting(in: &group)
                taken += 1
              }
            }
            mailbox.inputHandled()
          }
          if let reason = stopReason(stopWhenIdle: stopWhenIdle) { return reason }
        }
        if batch.isEmpty, mailbox.isCancelled { return .cancelled }
      }
    }

    /// Applies `message` (told to the journal around it).
    /// - Returns: Whether the step started an effect.
    @inlinable mutating func step<Journal: StoreJournal<Action>>(
      _ message: StoreHappening<Action>, journal: Journal?,
      observe: (StoreEvent<State, Action>) -> Void
    ) -> Bool {
      if let journal {
        journal.record(message) { handle(message, observe: observe) }
      } else {
        handle(message, observe: observe)
      }
      return !starting.isEmpty
    }

    /// Applies the run's cancel action for its final transition; the effects it returns are not
    /// run. The journal hears of it as ``StoreHappening/cancelled``.
    @inlinable mutating func applyCancel<Journal: StoreJournal<Action>>(
      _ onCancel: Action?, journal: Journal?,
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      guard let journal else {
        if let onCancel { _ = reduce(onCancel, from: nil, observe: observe) }
        return
      }
      journal.record(.cancelled) {
        if let onCancel { _ = reduce(onCancel, from: nil, observe: observe) }
      }
    }

    /// Runs the effects the last step started, each as a child task of `group`.
    @inlinable mutating func spawnStarting(in group: inout DiscardingTaskGroup) {
      if !starting.isEmpty { spawnEach(in: &group) }
    }

    /// ``spawnStarting(in:)``'s work, once per effect: not inlined into the loop.
    @usableFromInline mutating func spawnEach(in group: inout DiscardingTaskGroup) {
      let mailbox = self.mailbox
      for (info, effect, handle) in starting {
        let serial = info.serial
        group.addTask {
          let runner = EffectRunner<Action>(
            send: Send { mailbox.send(.effectAction($0, serial: serial)) },
            requestCancel: { mailbox.send(.cancelRequest($0)) }
          )
          let outcome = await EffectContext.$current.withValue(info) {
            await EffectContext.$handle.withValue(handle) {
              await handle.run { await runner.perform(effect) }
            }
          }
          mailbox.send(.effectFinished(serial: serial, outcome))
        }
      }
      starting.removeAll(keepingCapacity: true)
    }

    /// Why the run must end now, if it must.
    @inlinable func stopReason(stopWhenIdle: Bool) -> StoreStopReason? {
      if finishRequested { return .finished }
      if stopWhenIdle, inputFinished, registry.isEmpty, immediate.isEmpty { return .idle }
      return nil
    }

    @inlinable mutating func handle(
      _ message: StoreHappening<Action>,
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      switch message {
      case .input(let action):
        apply(action, from: nil, observe: observe)
      case .inputFinished: inputFinished = true
      case .effectAction(let action, let serial):
        guard let info = registry.runningInfo(serial) else { return }
        apply(action, from: info, observe: observe)
      case .effectFinished(let serial, let outcome):
        handles[serial] = nil
        perform(registry.finished(serial, outcome: outcome), observe: observe)
      case .cancelRequest(let id):
        perform(registry.cancel(id: id), observe: observe)
      case .cancelled:
        break  // never sent: the run applies its cancel action itself (`applyCancel`)
      }
      while !immediate.isEmpty, !finishRequested {
        let (action, info) = immediate.removeFirst()
        apply(action, from: info, observe: observe)
      }
    }

    @inlinable mutating func apply(
      _ action: Action, from info: EffectInfo?,
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      schedule(
        reduce(action, from: info, observe: observe), from: info, observe: observe)
    }

    /// Applies `action`, reports it, and returns the work it asks for.
    @inlinable mutating func reduce(
      _ action: Action, from info: EffectInfo?, observe: (StoreEvent<State, Action>) -> Void
    ) -> Effect<Action> {
      let old = state
      let effect = reducer(&state, action)
      if let reason = effect.ignoredReason {
        observe(.ignored(action: action, reason: reason, state: state))
      } else {
        observe(.transition(action: action, from: old, to: state, effect: info))
      }
      return effect
    }

    /// Cancels every running effect and ends the waiting ones.
    /// - Returns: How each effect ended, in order, to report once their tasks have returned.
    @inlinable mutating func cancelAll() -> [(EffectInfo, EffectOutcome)] {
      var ended: [(EffectInfo, EffectOutcome)] = []
      for command in registry.cancelAll() {
        switch command {
        case .cancel(let info):
          handles[info.serial]?.cancel()
          ended.append((info, .cancelled))
        case .finished(let info, let outcome):
          ended.append((info, outcome))
        case .start, .queued, .dropped:
          break
        }
      }
      return ended
    }

    @inlinable mutating func schedule(
      _ effect: Effect<Action>, from info: EffectInfo?,
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      switch effect.kind {
      case .none, .ignored: break
      case .finishRun: finishRequested = true
      case .send(let action):
        immediate.append((action, info))
      case .merge(let effects):
        for effect in effects { schedule(effect, from: info, observe: observe) }
      case .cancel(let id):
        perform(registry.cancel(id: id), observe: observe)
      case .cancellable(let inner, let id, let policy):
        for part in inner.turnParts { schedule(part, from: info, observe: observe) }
        if let work = inner.work {
          perform(
            registry.register(
              work, id: id, policy: policy, name: work.name, detail: work.detail),
            observe: observe)
        }
      case .run(let name, let detail, _, _):
        perform(
          registry.register(effect, id: nil, policy: nil, name: name, detail: detail),
          observe: observe)
      }
    }

    @inlinable mutating func perform(
      _ commands: [EffectRegistry<Action>.Command],
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      for command in commands {
        switch command {
        case .start(let info, let effect):
          start(info, effect, observe: observe)
        case .cancel(let info):
          handles[info.serial]?.cancel()
        case .queued(let info):
          observe(.effectQueued(info))
        case .dropped(let info):
          observe(.effectDropped(info))
        case .finished(let info, let outcome):
          observe(.effectFinished(info, outcome))
        }
      }
    }

    @inlinable mutating func start(
      _ info: EffectInfo, _ effect: Effect<Action>,
      observe: (StoreEvent<State, Action>) -> Void
    ) {
      let handle = EffectHandle()
      handles[info.serial] = handle
      observe(.effectStarted(info))
      starting.append((info, effect, handle))
    }
  }
}

/// The input's iterator, shared by the input task and the run loop, which take turns with it.
///
/// Why `@unchecked Sendable` is safe: `iterator` is used by one side at a time. The input task
/// uses it (``next()``) only between the loop's ``StoreMailbox/inputHandled()`` and its own next
/// ``StoreMailbox/sendInput(_:)``; the loop uses it (``nextReady()``) only after taking an input
/// the task sent and before calling `inputHandled()`, while the task is parked in `sendInput`
/// waiting for exactly that. Both hand-overs go through the mailbox's lock, which orders the
/// accesses. `ready` is immutable.
@usableFromInline final class InputTurn<Iterator: AsyncIteratorProtocol>: @unchecked Sendable
where Iterator.Failure == Never {
  @usableFromInline var iterator: Iterator
  @usableFromInline let ready: ((inout Iterator) -> Iterator.Element?)?

  @inlinable init(_ iterator: Iterator, ready: ((inout Iterator) -> Iterator.Element?)?) {
    self.iterator = iterator
    self.ready = ready
  }

  /// The input task's turn.
  @inlinable func next() async -> Iterator.Element? { await iterator.next(isolation: nil) }

  /// The loop's turn.
  @inlinable func nextReady() -> Iterator.Element? { ready?(&iterator) }
}
