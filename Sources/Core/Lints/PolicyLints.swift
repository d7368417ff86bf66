/// A named warning a run can raise while it goes: not an error, a sign that something about the
/// work needs changing.
///
/// A struct over a fixed set of names (more may come): each has a stable name, used by
/// `warning[NAME]:` lines, `--deny` and `--allow`.
public struct Lint: Hashable, Sendable, CustomStringConvertible {
  /// The stable name, such as `backlog`.
  public let name: String

  private init(_ name: String) { self.name = name }

  /// A command ignored SIGTERM and was killed with SIGKILL after its grace.
  public static let needsSigkill = Lint("needs-sigkill")
  /// Processes a command started were still alive after it ended, and were torn down.
  public static let leftBehind = Lint("left-behind")
  /// A `queue` policy's pending effects kept growing for longer than a threshold.
  public static let backlog = Lint("backlog")
  /// Under `latest`, new work superseded old for longer than a threshold and nothing completed.
  public static let starved = Lint("starved")
  /// A buffer dropped values.
  public static let dropped = Lint("dropped")
  /// A timer tick or a scheduled input line ran later than a threshold.
  public static let late = Lint("late")

  /// Every lint, in the order reports list them.
  public static let all: [Lint] = [.needsSigkill, .leftBehind, .backlog, .starved, .dropped, .late]

  /// The lint named `name`, if there is one.
  public init?(named name: String) {
    guard let lint = Self.all.first(where: { $0.name == name }) else { return nil }
    self = lint
  }

  public var description: String { name }
}

/// One raised lint: which, about what, and what happened and what to change.
public struct LintWarning: Sendable, Equatable {
  public let lint: Lint
  /// What it is about, such as an effect's label: warnings with the same lint and subject are
  /// one warning, raised again.
  public let subject: String
  /// One sentence: what happened, and what to change.
  public let message: String

  public init(_ lint: Lint, subject: String, message: String) {
    self.lint = lint
    self.subject = subject
    self.message = message
  }
}

/// The lints that know effect policies, `backlog` and `starved`, evaluated on a store's events as
/// they happen (see ``StoreEvent``), on whichever clock the run uses.
///
/// - `backlog`: effects of one id under `queue` wait for the one before them; the lint is raised
///   when the id's queue has not been empty for longer than ``backlogAfter`` and has just grown
///   past its length when it last started to fill. A queue that fills in a burst and drains is
///   never raised, however long it takes to drain.
/// - `starved`: an effect registered under `latest` while work of its id is in flight
///   supersedes that work; the lint is raised when supersessions have gone on for longer than
///   ``starvedAfter`` and no work of that id has finished in that time. An effect named in
///   ``waits`` is not work: superseding a debounce is the debounce doing its job, and one that
///   elapses completes nothing.
///
/// ```swift
/// var lints = PolicyLints()
/// let result = await store.run(inputs: inputs) { event in
///   if let warning = lints.observe(event, at: clock.now.offset) { print(warning.message) }
/// }
/// ```
public struct PolicyLints: Sendable {
  /// How long a growing `queue` backlog is tolerated.
  public var backlogAfter: Duration
  /// How long `latest` supersessions without a completion are tolerated.
  public var starvedAfter: Duration
  /// The names of effects that only wait for input to settle before work starts (a debounce).
  public var waits: Set<String>

  private struct Queue {
    var waiting: Set<Int> = []
    /// When the queue last went from empty to not empty, and its length then.
    var since: Duration?
    var lengthThen = 0
  }

  private var queues: [EffectID: Queue] = [:]
  /// Per `latest` id: when the first supersession since the last completion happened.
  private var supersededSince: [EffectID: Duration] = [:]
  /// Per id: the labels of the started effects that are work (not ``waits``) and in flight, by
  /// serial.
  private var working: [EffectID: [Int: String]] = [:]

  public init(
    backlogAfter: Duration = .seconds(5), starvedAfter: Duration = .seconds(3),
    waits: Set<String> = []
  ) {
    self.backlogAfter = backlogAfter
    self.starvedAfter = starvedAfter
    self.waits = waits
  }

  /// Takes in one event that happened at `time` (read only for the events that need it).
  /// - Returns: The warning it raises, if any; the same lint and subject may be raised again.
  public mutating func observe<State, Action>(
    _ event: StoreEvent<State, Action>, at time: @autoclosure () -> Duration
  ) -> LintWarning? {
    switch event {
    case .effectQueued(let info):
      guard let id = info.id else { return nil }
      switch info.policy {
      case .queue: return queued(info, id: id, at: time())
      case .latest: return superseded(info, id: id, at: time())
      default: return nil
      }
    case .effectStarted(let info):
      left(info)
      if let id = info.id, isWork(info) { working[id, default: [:]][info.serial] = info.label }
    case .effectFinished(let info, let outcome):
      left(info)
      guard let id = info.id, isWork(info) else { break }
      working[id]?[info.serial] = nil
      if outcome == .finished { supersededSince[id] = nil }
    case .transition, .ignored, .effectDropped:
      break
    }
    return nil
  }

  private mutating func queued(_ info: EffectInfo, id: EffectID, at time: Duration)
    -> LintWarning?
  {
    var queue = queues[id, default: Queue()]
    queue.waiting.insert(info.serial)
    if queue.since == nil {
      queue.since = time
      queue.lengthThen = queue.waiting.count
    }
    queues[id] = queue
    guard let since = queue.since, time - since > backlogAfter,
      queue.waiting.count > queue.lengthThen
    else { return nil }
    return LintWarning(
      .backlog, subject: info.label,
      message:
        "\(queue.waiting.count) \"\(info.label)\" effects are waiting under the queue policy "
        + "and the queue has not emptied for \(Self.seconds(time - since)): work arrives faster "
        + "than it completes; send it less often, or use latest or drop")
  }

  private mutating func superseded(_ info: EffectInfo, id: EffectID, at time: Duration)
    -> LintWarning?
  {
    guard let old = working[id]?.min(by: { $0.key < $1.key })?.value else { return nil }
    guard let since = supersededSince[id] else {
      supersededSince[id] = time
      return nil
    }
    guard time - since > starvedAfter else { return nil }
    return LintWarning(
      .starved, subject: old,
      message:
        "new work has superseded \"\(old)\" under the latest policy for "
        + "\(Self.seconds(time - since)) and none of it completed: the input comes faster than "
        + "the work completes; send it less often, or make the work faster")
  }

  private func isWork(_ info: EffectInfo) -> Bool {
    info.name.map { !waits.contains($0) } ?? true
  }

  /// A queued effect started, or ended before it did.
  private mutating func left(_ info: EffectInfo) {
    guard let id = info.id, var queue = queues[id], queue.waiting.remove(info.serial) != nil
    else { return }
    if queue.waiting.isEmpty { queue.since = nil }
    queues[id] = queue
  }

  /// `3.2s`: a duration in seconds with one decimal.
  static func seconds(_ duration: Duration) -> String {
    let tenths = (duration / .milliseconds(100)).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)s"
  }
}
