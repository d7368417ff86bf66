/// The store's bookkeeping of effects by id and policy, kept apart from the task plumbing.
///
/// Each event method mutates the registry and returns the commands the run loop must carry out,
/// in order, so policies can be tested without tasks.
@usableFromInline struct EffectRegistry<Action: Sendable> {
  /// Start or cancel an effect task, or report a phase to observers.
  @usableFromInline enum Command {
    case start(EffectInfo, Effect<Action>)
    case cancel(EffectInfo)
    case queued(EffectInfo)
    case dropped(EffectInfo)
    case finished(EffectInfo, EffectOutcome)
  }

  @usableFromInline var nextSerial = 0
  @usableFromInline var running: [Int: EffectInfo] = [:]
  @usableFromInline var cancelled: Set<Int> = []
  /// Never holds an empty list: a key goes when its last waiting effect does.
  @usableFromInline var waiting: [EffectID: [(info: EffectInfo, effect: Effect<Action>)]] = [:]

  @inlinable init() {}

  /// Whether no effect is running or waiting to run.
  @inlinable var isEmpty: Bool { running.isEmpty && waiting.isEmpty }

  /// The running effect `serial`, unless it was cancelled (then its actions are dropped).
  @inlinable func runningInfo(_ serial: Int) -> EffectInfo? {
    cancelled.contains(serial) ? nil : running[serial]
  }

  @inlinable mutating func register(
    _ effect: Effect<Action>, id: EffectID?, policy: EffectPolicy?, name: String?,
    detail: EffectDetail?
  ) -> [Command] {
    nextSerial += 1
    let info = EffectInfo(serial: nextSerial, id: id, policy: policy, name: name, detail: detail)
    guard let id, let policy else { return start(info, effect) }
    var busy: Bool { running.values.contains { $0.id == id && !cancelled.contains($0.serial) } }
    let queued = waiting[id] != nil
    switch policy {
    case .parallel:
      return start(info, effect)
    case .drop:
      // A cancelled one still unwinding is not in flight, but the new one waits for it to end:
      // two never run at once.
      if busy || queued { return [.dropped(info)] }
      return isUnwinding(id) ? enqueue(info, effect, id) : start(info, effect)
    case .queue:
      return queued || isUnwinding(id) ? enqueue(info, effect, id) : start(info, effect)
    case .latest:
      let commands = cancel(id: id)
      return commands + (isUnwinding(id) ? enqueue(info, effect, id) : start(info, effect))
    case .replace:
      return cancel(id: id) + start(info, effect)
    }
  }

  /// Cancels every running and waiting effect registered under `id`.
  @inlinable mutating func cancel(id: EffectID) -> [Command] {
    cancelRunning { $0.id == id && !$1 } + dropWaiting(id)
  }

  /// Cancels everything, for the end of a run.
  ///
  /// Effects already cancelled but still unwinding are included: the run will not read their
  /// `finished` message any more, so this is the last chance to report their end.
  @inlinable mutating func cancelAll() -> [Command] {
    let ids = waiting.keys.sorted { $0.name < $1.name }
    return cancelRunning { _, _ in true } + ids.flatMap { dropWaiting($0) }
  }

  /// Records the end of a running effect and starts the next one waiting on its id.
  @inlinable mutating func finished(_ serial: Int, outcome: EffectOutcome) -> [Command] {
    guard let info = running.removeValue(forKey: serial) else { return [] }
    let wasCancelled = cancelled.remove(serial) != nil
    var commands: [Command] = [.finished(info, wasCancelled ? .cancelled : outcome)]
    if let id = info.id, var queue = waiting[id], !queue.isEmpty, !isUnwinding(id) {
      let next = queue.removeFirst()
      waiting[id] = queue.isEmpty ? nil : queue
      commands += start(next.info, next.effect)
    }
    return commands
  }

  /// Cancels the running effects that `matches` (given each one and whether it was cancelled
  /// already), in start order.
  @inlinable mutating func cancelRunning(where matches: (EffectInfo, Bool) -> Bool) -> [Command] {
    let chosen = running.values.sorted { $0.serial < $1.serial }.filter {
      matches($0, cancelled.contains($0.serial))
    }
    cancelled.formUnion(chosen.map(\.serial))
    return chosen.map { .cancel($0) }
  }

  /// Ends the effects waiting under `id` before they started.
  @inlinable mutating func dropWaiting(_ id: EffectID) -> [Command] {
    (waiting.removeValue(forKey: id) ?? []).map { .finished($0.info, .cancelled) }
  }

  /// Whether an effect under `id` still runs, cancelled or not.
  @inlinable func isUnwinding(_ id: EffectID) -> Bool {
    running.values.contains { $0.id == id }
  }

  @inlinable mutating func start(_ info: EffectInfo, _ effect: Effect<Action>) -> [Command] {
    running[info.serial] = info
    return [.start(info, effect)]
  }

  @inlinable mutating func enqueue(
    _ info: EffectInfo, _ effect: Effect<Action>, _ id: EffectID
  ) -> [Command] {
    waiting[id, default: []].append((info, effect))
    return [.queued(info)]
  }
}
