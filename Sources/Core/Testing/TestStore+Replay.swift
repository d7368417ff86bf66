import LoadctlCore
import Testing

extension TestStore where Action: Equatable {
  /// Plays a recorded run against this store and fails at the first happening its effects do
  /// not reproduce.
  ///
  /// The recorded inputs are sent at their recorded times on the store's clock (measured from
  /// the call); the store runs its reducer and its effects as a test does, and every action an
  /// effect sends, every effect's end and every cancel request must be the next one the
  /// recording holds, in its order, with the same effect serials, and come within `lateness`
  /// of its recorded time. Effect ids are compared by
  /// name and failures by their message. The first difference is recorded as a failure at the
  /// call, naming the happening and its line in a file ``StoreFileJournal`` wrote, and the replay
  /// stops there. The actions replayed need no `receive`: the recording asserted them, and
  /// ``state`` is the state after the last one.
  ///
  /// ```swift
  /// let recording = try StoreRecordingFile.read(atPath: path) {
  ///   try JSONDecoder().decode(RecordedHappening<Counter.Action>.self, from: Data($0))
  /// }
  /// let store = TestStore(initialState: Counter.State()) { state, action in … }
  /// store.replay(recording)
  /// #expect(store.state.saved == 2)
  /// ```
  ///
  /// An input is sent at its recorded time, or, when a sleep on the clock ends up to `lateness`
  /// before that, just before the sleep ends, so that a recording of a real run, whose effects
  /// woke late by the scheduler's delays, replays in its order. The store runs everything that can run before it sends the next
  /// input, so a happening that a real run recorded after a later input (an effect that
  /// ended within microseconds of it) is a divergence. `input_finished` is not replayed (the
  /// store's inputs stay open), and `cancelled` ends the replay with the effects in flight
  /// cancelled; the run's cancel action is not sent. Actions received before the call must
  /// have been asserted (with exhaustivity on).
  ///
  /// - Parameters:
  ///   - recording: The happenings of a recorded run, from its start.
  ///   - lateness: How far a recorded time may be from the store's: how late the recorded
  ///     run's effects may have woken.
  public func replay(
    _ recording: some Sequence<RecordedHappening<Action>>,
    lateness: Duration = .milliseconds(50),
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    clock.drain()
    reportFailures()
    let unreceived = log.withLock(\.pending.count)
    if unreceived > 0, exhaustivity == .on {
      fail("must receive \(unreceived) action(s) before replaying a recording", at: sourceLocation)
    }
    let start = clock.now.offset
    var matched = log.withLock { log in
      log.location = sourceLocation
      return log.happenings.count
    }
    func next() -> StoreHappening<Action>? { nextTimed()?.happening }
    func nextTimed() -> (happening: StoreHappening<Action>, time: Duration)? {
      log.withLock { $0.happenings.count > matched ? $0.happenings[matched] : nil }
    }
    func diverge(_ index: Int, _ line: RecordedHappening<Action>?, _ actual: String) {
      let expected =
        line.map {
          "happening \(index + 1) (file line \(index + 2)), at \($0.time): "
            + Self.describe($0.happening)
        } ?? "the end of the recording, after \(index) happening(s)"
      fail("replay diverged at \(expected)\n  the store: \(actual)", at: sourceLocation)
    }
    defer { settleReplay() }
    var count = 0
    for (index, line) in recording.enumerated() {
      count = index + 1
      switch line.happening {
      case .inputFinished:
        continue
      case .input, .cancelled:
        let target = start + line.time
        var wakes = 0
        while next() == nil, wakes < 1_000_000, let deadline = clock.nextDeadline,
          deadline.offset <= target - lateness
        {
          clock.advance(to: deadline)
          wakes += 1
        }
        let stop = clock.nextDeadline.map { min(target, $0.offset - .nanoseconds(1)) } ?? target
        if next() == nil, stop > clock.now.offset { clock.advance(to: .init(offset: stop)) }
        if let extra = next() { return diverge(index, line, Self.describe(extra) + " first") }
        guard case .input(let action) = line.happening else {
          cancelInFlight()
          return
        }
        input.yield(action)
        clock.drain()
        guard next() == line.happening else {
          return diverge(index, line, "did not apply it (its run has ended)")
        }
        matched += 1
      case .effectAction, .effectFinished, .cancelRequest:
        var wakes = 0
        while next() == nil, wakes < 1_000_000, let deadline = clock.nextDeadline {
          clock.advance(to: deadline)
          wakes += 1
        }
        guard let (actual, time) = nextTimed() else {
          return diverge(index, line, "nothing more happened (no effect is left to do it)")
        }
        guard Self.matches(line.happening, actual) else {
          return diverge(index, line, Self.describe(actual))
        }
        let off = time - start - line.time
        guard off <= lateness, off >= .zero - lateness else {
          return diverge(index, line, "\(Self.describe(actual)) at \(time - start)")
        }
        matched += 1
      }
    }
    clock.drain()
    if let extra = next() { diverge(count, nil, Self.describe(extra)) }
  }

  private static func describe(_ happening: StoreHappening<Action>) -> String {
    switch happening {
    case .input(let action): "input \(action)"
    case .inputFinished: "inputs finished"
    case .effectAction(let action, let serial): "effect \(serial) sent \(action)"
    case .effectFinished(let serial, let outcome): "effect \(serial) ended \(outcome)"
    case .cancelRequest(let id): "effect asked to cancel \(id.name)"
    case .cancelled: "run cancelled"
    }
  }

  /// Whether the store's `actual` happening is the `recorded` one.
  private static func matches(
    _ recorded: StoreHappening<Action>, _ actual: StoreHappening<Action>
  ) -> Bool {
    if case .cancelRequest(let left) = recorded, case .cancelRequest(let right) = actual {
      return left.name == right.name
    }
    return recorded == actual
  }
  /// Asserts that effects sent `action` next, and the state change it made.
  ///
  /// - Parameter timeout: How long to wait, in real time, for an action from work outside the
  ///   clock's executor (a fake that sleeps on a real clock); by default, not at all.
  public func receive(
    _ action: Action, timeout: Duration = .zero, _ update: ((inout State) throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    receive({ $0 == action }, "\(action)", update, timeout: timeout, at: sourceLocation)
  }

  /// Asserts that effects sent `action` next and that the reducer ignored it with `reason`,
  /// leaving the state as it was (a response that arrives when nothing waits for it).
  public func receiveIgnored(
    _ action: Action, reason: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    clock.drain()
    let event = popPending()
    if let event, Self.action(of: event) != action {
      current.withLock { $0 = Self.state(after: event) }
      fail(
        "expected to receive \(action), ignored; received \(Self.action(of: event))",
        at: sourceLocation)
    } else {
      assertIgnored(event, "receive(\(action))", reason: reason, at: sourceLocation)
    }
    reportFailures()
  }
}
