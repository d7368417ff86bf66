import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The interactive side of one run: raw-mode keys in, and the promise to restore the terminal.
///
/// Keys are offered only when stdin is a terminal and time is real; scripts and pipes never see
/// raw mode or a key legend. The runtime calls ``restore()`` on every way the run ends.
package final class TerminalSession: Sendable {
  private let rawMode = Locked<RawMode?>(nil)
  /// Whether keys can be read: stdin is a terminal and the clock is continuous.
  package let isInteractive: Bool
  private let interrupt: @Sendable () -> Void
  private let quit: @Sendable () -> Void
  private let legend: @Sendable (String) -> Void

  package init(
    isInteractive: Bool, interrupt: @escaping @Sendable () -> Void,
    quit: @escaping @Sendable () -> Void, legend: @escaping @Sendable (String) -> Void
  ) {
    self.isInteractive = isInteractive
    self.interrupt = interrupt
    self.quit = quit
    self.legend = legend
  }

  /// Actions from key presses, or `nil` when the run is not interactive.
  ///
  /// Enters raw mode and shows `legend` on stderr. Ctrl-C takes the SIGINT path at once, ahead
  /// of any keys still queued; Ctrl-Z and Ctrl-\ send SIGTSTP and SIGQUIT to the process group,
  /// as the terminal would with keyboard signals on (see ``KeyReader``); `q`, Esc (when `map`
  /// does not use them) and end of input quit the run with status 0. A run in the background
  /// stops, as a job reading its terminal does, until it is brought to the foreground.
  /// - Parameters:
  ///   - coalescing: Whether the actions of keys read together replace each other, so that a
  ///     burst (a paste) reaches the flow as its last action (see ``KeyMap/coalescing``).
  ///   - mapper: Gives, at each read of keys, given those keys, the map of that read's keys, in
  ///     order: the action for a key, ``KeyResult/quit`` or ``KeyResult/ignore``.
  package func keyActions<Action: Sendable>(
    legend text: String, coalescing: Bool = false,
    mapper: @escaping @Sendable (_ burst: [Key]) -> (Key) -> KeyResult<Action>
  ) -> KeyActions<Action>? {
    guard isInteractive,
      Foreground.waitForTerminal(fd: 0, isCancelled: { Task.isCancelled }),
      let mode = RawMode.enter(fd: 0)
    else { return nil }
    rawMode.withLock { $0 = mode }
    if !text.isEmpty { legend(text) }
    // Raw first: a key typed before it is not echoed into the view.
    screen.withLock { $0 }?.enter()
    return KeyActions(
      bursts: KeyReader.bursts(fd: 0, interrupt: interrupt), mapper: mapper,
      coalescing: coalescing, quit: quit)
  }

  /// Puts the terminal back as it was; safe to call more than once.
  /// - Parameter forced: Do not wait for pending output to drain (a forced exit).
  package func restore(forced: Bool = false) {
    screen.withLock { $0 }?.leave()
    rawMode.withLock { $0 }?.restore(forced: forced)
  }

  /// Puts the terminal back for a stop (SIGTSTP); ``resume()`` makes it raw again.
  package func suspend() {
    screen.withLock { $0 }?.suspend()
    rawMode.withLock { $0 }?.suspend()
  }

  /// Re-enters raw mode after SIGCONT, if the run still reads keys.
  package func resume() {
    rawMode.withLock { $0 }?.reenter()
    screen.withLock { $0 }?.resume()
  }

  private let screen = Locked<TerminalScreen?>(nil)

  /// The window changed size (SIGWINCH): the view shown, if any, is drawn again.
  package func windowChanged() {
    screen.withLock { $0 }?.windowChanged()
  }

  /// Hands the run's full-screen view to the session, which shows it once the terminal reads
  /// keys, leaves it wherever it puts the terminal back (every end, a forced one too) and
  /// takes it down and up around a stop.
  package func show(_ view: TerminalScreen) {
    screen.withLock { $0 = view }
  }
}

/// What a key press means to a flow.
package enum KeyResult<Action: Sendable>: Sendable {
  /// An action that, when the keys of a read coalesce, the read's later actions replace.
  case action(Action)
  /// An action that reaches the flow whatever follows it in the read (a move relative to the
  /// state, which no later action repeats); the coalesced action before it goes first.
  case step(Action)
  /// The flow's last action: it reaches the flow (after those before it), then the keys end.
  case last(Action)
  case quit
  case ignore
}

/// The flow's actions for the keys pressed, pulled one at a time by the store (no extra task).
///
/// Keys come in bursts, the keys of one read (see ``KeyReader/bursts(fd:escapeTimeout:interrupt:)``).
/// Each key is mapped in order, by the map `mapper` gives for its burst; when `coalescing`, the
/// actions of one burst replace each other and only the last reaches the flow (a map that
/// makes each action hold everything typed so far, as search's does, makes it hold the burst's
/// every key).
package struct KeyActions<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  let bursts: AsyncStream<[Key]>
  /// The map of the keys of one burst, given the burst, asked for as its first key is mapped.
  let mapper: @Sendable (_ burst: [Key]) -> (Key) -> KeyResult<Action>
  let coalescing: Bool
  let quit: @Sendable () -> Void

  package func makeAsyncIterator() -> Iterator {
    Iterator(bursts: bursts.makeAsyncIterator(), sequence: self)
  }

  /// Maps keys until one quits or input ends.
  package struct Iterator: AsyncIteratorProtocol {
    var bursts: AsyncStream<[Key]>.Iterator
    let sequence: KeyActions
    /// The keys of the current burst not mapped yet.
    var waiting: ArraySlice<Key> = []
    /// The current burst.
    var burst: [Key] = []
    /// The current burst's map.
    var map: ((Key) -> KeyResult<Action>)?
    /// An action to deliver at the next call, after the coalesced one delivered before it.
    var queued: Action?
    /// Whether the keys end once `queued` is delivered.
    var ending = false

    package mutating func next() async -> Action? {
      if let queued {
        self.queued = nil
        return queued
      }
      if ending {
        sequence.quit()
        return nil
      }
      while true {
        if waiting.isEmpty {
          guard let burst = await bursts.next() else { break }
          waiting = burst[...]
          self.burst = burst
          map = nil
        }
        let map = self.map ?? sequence.mapper(burst)
        self.map = map
        var latest: Action?
        while let key = waiting.popFirst() {
          switch map(key) {
          case .action(let action):
            guard sequence.coalescing else { return action }
            latest = action
          case .step(let action):
            guard let latest else { return action }
            queued = action
            return latest
          case .last(let action):
            ending = true
            guard let latest else { return action }
            queued = action
            return latest
          case .quit:
            if let latest {
              ending = true
              return latest
            }
            sequence.quit()
            return nil
          case .ignore:
            if key == .endOfInput {
              sequence.quit()
              return nil
            }
          }
        }
        if let latest { return latest }
      }
      sequence.quit()
      return nil
    }
  }
}
