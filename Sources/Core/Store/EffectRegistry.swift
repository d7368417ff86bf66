/// The store's bookkeeping of effects by id and policy, kept apart from the task plumbing.
///
/// Each event method mutates the registry and returns the commands the run loop must carry out,
/// in order, so policies can be tested without tasks (see swift-async-algorithms'
/// `DebounceStateMachine` for the shape).
struct EffectRegistry<Action: Sendable> {
  enum Command {
    case start(EffectInfo, Effect<Action>)
    case cancel(EffectInfo)
    case report(Report)
  }

  enum Report {
    case queued(EffectInfo)
    case dropped(EffectInfo)
    case finished(EffectInfo, EffectOutcome)
  }

  struct Waiting {
    var info: EffectInfo
    var effect: Effect<Action>
  }

  private var nextSerial = 0
  var running: [Int: EffectInfo] = [:]
  private var cancelled: Set<Int> = []
  /// Never holds an empty list: a key goes when its last waiting effect does.
  var waiting: [EffectID: [Waiting]] = [:]

  init() {}

  /// Whether no effect is running or waiting to run.
  var isEmpty: Bool { running.isEmpty && waiting.isEmpty }

  /// The running effect `serial`, unless it was cancelled: where its actions come from.
  func runningInfo(_ serial: Int) -> EffectInfo? {
    guard let info = running[serial], !isCancelled(serial) else { return nil }
    return info
  }

  /// Whether actions sent by this effect must be dropped.
  func isCancelled(_ serial: Int) -> Bool { cancelled.contains(serial) || running[serial] == nil }

  /// Effects running now, in start order.
  var runningEffects: [EffectInfo] { running.values.sorted { $0.serial < $1.serial } }

  mutating func register(
    _ effect: Effect<Action>, id: EffectID?, policy: EffectPolicy?, name: String?
  ) -> [Command] {
    nextSerial += 1
    let info = EffectInfo(serial: nextSerial, id: id, policy: policy, name: name)
    guard let id, let policy else { return start(info, effect) }
    var busy: Bool { running.values.contains { $0.id == id && !cancelled.contains($0.serial) } }
    let queued = waiting[id] != nil
    switch policy {
    case .parallel:
      return start(info, effect)
    case .drop:
      return busy || queued ? [.report(.dropped(info))] : start(info, effect)
    case .queue:
      return busy || queued || isUnwinding(id) ? enqueue(info, effect, id) : start(info, effect)
    case .latest:
      var commands = cancel(id: id)
      let unwinding = running.values.contains { $0.id == id }
      commands += unwinding ? enqueue(info, effect, id) : start(info, effect)
      return commands
    }
  }

  /// Cancels every running and waiting effect registered under `id`.
  mutating func cancel(id: EffectID) -> [Command] {
    var commands: [Command] = []
    for info in runningEffects where info.id == id && !cancelled.contains(info.serial) {
      cancelled.insert(info.serial)
      commands.append(.cancel(info))
    }
    for item in waiting.removeValue(forKey: id) ?? [] {
      commands.append(.report(.finished(item.info, .cancelled)))
    }
    return commands
  }

  /// Cancels everything, for the end of a run.
  ///
  /// Effects already cancelled but still unwinding are included: the run will not read their
  /// `finished` message any more, so this is the last chance to report their end.
  mutating func cancelAll() -> [Command] {
    var commands: [Command] = []
    for info in runningEffects {
      cancelled.insert(info.serial)
      commands.append(.cancel(info))
    }
    let ids = waiting.keys.sorted { $0.name < $1.name }
    for id in ids {
      for item in waiting.removeValue(forKey: id) ?? [] {
        commands.append(.report(.finished(item.info, .cancelled)))
      }
    }
    return commands
  }

  /// Records the end of a running effect and starts the next one waiting on its id.
  mutating func finished(_ serial: Int, outcome: EffectOutcome) -> [Command] {
    guard let info = running.removeValue(forKey: serial) else { return [] }
    let wasCancelled = cancelled.remove(serial) != nil
    var commands: [Command] = [.report(.finished(info, wasCancelled ? .cancelled : outcome))]
    if let id = info.id, var queue = waiting[id], !queue.isEmpty,
      !running.values.contains(where: { $0.id == id })
    {
      let next = queue.removeFirst()
      waiting[id] = queue.isEmpty ? nil : queue
      commands += start(next.info, next.effect)
    }
    return commands
  }

  private func isUnwinding(_ id: EffectID) -> Bool {
    running.values.contains { $0.id == id }
  }

  private mutating func start(_ info: EffectInfo, _ effect: Effect<Action>) -> [Command] {
    running[info.serial] = info
    return [.start(info, effect)]
  }

  private mutating func enqueue(
    _ info: EffectInfo, _ effect: Effect<Action>, _ id: EffectID
  ) -> [Command] {
    waiting[id, default: []].append(Waiting(info: info, effect: effect))
    return [.report(.queued(info))]
  }
}
