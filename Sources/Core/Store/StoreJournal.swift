import Synchronization

/// Something that entered a store's run from outside its reducer, in the order it was applied.
///
/// These are all a run's nondeterminism: what the reducer makes of them is pure, so applying the
/// same happenings in the same order to the same initial state (``StoreReplay``) goes through the
/// same states and starts, cancels and queues the same effects. When `Action` is `Codable`, so
/// is a happening, for a recording kept in a file (``StoreRecordingFile``).
public enum StoreHappening<Action: Sendable>: Sendable {
  /// An action from the run's inputs.
  case input(Action)
  /// The inputs ended.
  case inputFinished
  /// The running effect `serial` sent `action`.
  case effectAction(Action, serial: Int)
  /// The effect `serial` ended (its task returned) with `outcome`.
  case effectFinished(serial: Int, EffectOutcome)
  /// An effect asked for the effects under an id to be cancelled. A file holds the id's
  /// ``EffectID/name``; a replay takes it for the id of an effect in flight with that name.
  case cancelRequest(EffectID)
  /// The run was cancelled: its cancel action is applied and it ends.
  case cancelled
}

extension StoreHappening: Equatable where Action: Equatable {}

/// Hears of every happening of a store's run as it is applied (see ``Store/run(inputs:stopWhenIdle:onCancel:journal:observe:)-8235j``).
///
/// `record` is called on the run loop, once per happening, and must call `step` exactly once,
/// synchronously: `step` applies the happening and reports its events to the run's observer, so
/// a journal can stamp a happening with its time and know which events it caused.
public protocol StoreJournal<Action>: Sendable {
  associatedtype Action: Sendable
  /// Records `happening` and applies it by calling `step`.
  func record(_ happening: StoreHappening<Action>, step: () -> Void)
  /// The run's closing reports, after its last happening: the `effectFinished` events of the
  /// effects cancelled with the run. Calls `report` exactly once; by default just that.
  func closing(_ report: () -> Void)
}

extension StoreJournal {
  public func closing(_ report: () -> Void) { report() }
}

/// A journal that keeps a run's happenings in memory, in order, for a replay in the same process
/// (a test that records a run and replays it against a changed reducer).
///
/// ```swift
/// let recording = StoreRecording<Counter.Action>()
/// _ = await store.run(inputs: inputs, journal: recording) { _ in }
/// let replayed = store.replay(recording.happenings) { event in print(event) }
/// ```
public final class StoreRecording<Action: Sendable>: StoreJournal {
  private let storage = Mutex<[StoreHappening<Action>]>([])

  public init() {}

  /// Every happening recorded so far, in the order it was applied.
  public var happenings: [StoreHappening<Action>] { storage.withLock { $0 } }

  public func record(_ happening: StoreHappening<Action>, step: () -> Void) {
    storage.withLock { $0.append(happening) }
    step()
  }
}

/// Applies a recorded run's happenings to a store again, one at a time, without running any
/// effect: the reducer starts, cancels and queues effects as it did, and their recorded actions
/// and ends arrive in place of their work.
///
/// The events it reports are those the recorded run reported, as long as the reducer and the
/// initial state are the same; where they differ, the first differing event is where the
/// changed program diverges from the recording.
public struct StoreReplay<State: Sendable, Action: Sendable>: ~Copyable {
  private var loop: Store<State, Action>.RunLoop
  private let stopWhenIdle: Bool
  private let onCancel: Action?
  /// Why the replayed run ended, once it has.
  public private(set) var stopReason: StoreStopReason?
  private var finished = false

  /// Starts a replay of a run of `store` made with the same `stopWhenIdle` and `onCancel`.
  public init(_ store: Store<State, Action>, stopWhenIdle: Bool = true, onCancel: Action? = nil) {
    loop = Store<State, Action>.RunLoop(
      state: store.initialState, reducer: store.reducer,
      mailbox: StoreMailbox<StoreHappening<Action>>())
    self.stopWhenIdle = stopWhenIdle
    self.onCancel = onCancel
  }

  /// The state after the happenings applied so far.
  public var state: State { loop.state }

  /// Applies one happening, reporting its events to `observe`, as the recorded run did.
  /// - Returns: Why the run ended, once it has; later happenings are ignored.
  @discardableResult
  public mutating func apply(
    _ happening: StoreHappening<Action>, observe: (StoreEvent<State, Action>) -> Void
  ) -> StoreStopReason? {
    if let stopReason { return stopReason }
    if case .cancelled = happening {
      loop.applyCancel(onCancel, journal: NoJournal<Action>?.none, observe: observe)
      stopReason = .cancelled
    } else {
      loop.handle(resolved(happening), observe: observe)
      loop.starting.removeAll()  // replayed: their recorded actions and ends stand in for them
      stopReason = loop.stopReason(stopWhenIdle: stopWhenIdle)
    }
    return stopReason
  }

  /// `happening`, with a cancel request's id replaced by the id of a running or waiting effect
  /// that has its name: a recording read from a file holds ids by name (an id wrapping an enum
  /// case reads back as its description), and a name stands for the id it was written from.
  private func resolved(_ happening: StoreHappening<Action>) -> StoreHappening<Action> {
    guard case .cancelRequest(let id) = happening else { return happening }
    let registry = loop.registry
    let ids = registry.running.values.compactMap(\.id) + registry.waiting.keys
    return .cancelRequest(ids.first { $0 == id } ?? ids.first { $0.name == id.name } ?? id)
  }

  /// Ends the replay as the recorded run ended: effects still running are cancelled and
  /// reported, as the run's closing reports were.
  /// - Returns: The last state, and why the run ended (`cancelled` if the happenings never
  ///   said: a recording cut short). Later calls report nothing more.
  public mutating func finish(observe: (StoreEvent<State, Action>) -> Void) -> StoreResult<State> {
    if !finished {
      finished = true
      stopReason = stopReason ?? .cancelled
      for (info, outcome) in loop.cancelAll() { observe(.effectFinished(info, outcome)) }
    }
    return StoreResult(state: loop.state, reason: stopReason ?? .cancelled)
  }
}

extension Store {
  /// Applies `happenings`, recorded from a run of this store, with no effect run; see
  /// ``StoreReplay``.
  public func replay(
    _ happenings: some Sequence<StoreHappening<Action>>, stopWhenIdle: Bool = true,
    onCancel: Action? = nil, observe: (StoreEvent<State, Action>) -> Void
  ) -> StoreResult<State> {
    var replay = StoreReplay(self, stopWhenIdle: stopWhenIdle, onCancel: onCancel)
    for happening in happenings {
      if replay.apply(happening, observe: observe) != nil { break }
    }
    return replay.finish(observe: observe)
  }
}

/// The journal of a run that has none: its type stands in where a run is generic over its
/// journal's; no value of it is ever made.
@usableFromInline struct NoJournal<Action: Sendable>: StoreJournal {
  @usableFromInline func record(_ happening: StoreHappening<Action>, step: () -> Void) { step() }
}
