import LoadctlCore

/// Turns lines (read as they arrive) into a flow's actions, on time, reporting bad lines.
///
/// This is the pull side of every `--input`: the store iterates it as its inputs, so waiting for
/// a `+DURATION` happens on the injected clock inside the store's own structured tree, and ends
/// when the run is cancelled. A rejected line is reported through `reject` and skipped; the lines
/// before and after it still apply.
package struct ScriptedInput<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  let lines: RawLines?
  let parsed: [TimedAction<Action>]
  let clock: any Clock<Duration>
  let elapsed: @Sendable () -> Duration
  let parse: @Sendable (String) -> Result<Action, InputError>
  let reject: @Sendable (InputError) -> Void

  /// - Parameters:
  ///   - lines: Raw lines, e.g. from ``LineSource``.
  ///   - clock: The run's clock; waits for time prefixes use it.
  ///   - elapsed: Time since the run started, for `@DURATION`.
  ///   - parse: Maps a line's body to an action, or explains why it can't (line number filled in).
  ///   - reject: Reports a bad line.
  package init(
    lines: RawLines, clock: any Clock<Duration>,
    elapsed: @escaping @Sendable () -> Duration,
    parse: @escaping @Sendable (String) -> Result<Action, InputError>,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.lines = lines
    self.parsed = []
    self.clock = clock
    self.elapsed = elapsed
    self.parse = parse
    self.reject = reject
  }

  /// Actions parsed before the run (arguments): each applies at its time, in order.
  package init(
    actions: [TimedAction<Action>], clock: any Clock<Duration>,
    elapsed: @escaping @Sendable () -> Duration
  ) {
    self.lines = nil
    self.parsed = actions
    self.clock = clock
    self.elapsed = elapsed
    self.parse = { _ in preconditionFailure("parsed actions are never parsed again") }
    self.reject = { _ in }
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(input: self, lines: lines?.makeAsyncIterator(), parsed: parsed[...])
  }

  /// Reads, waits and parses one action at a time.
  package struct Iterator: AsyncIteratorProtocol {
    let input: ScriptedInput
    var lines: RawLines.Iterator?
    var parsed: ArraySlice<TimedAction<Action>>

    package mutating func next() async -> Action? {
      await next(isolation: #isolation)
    }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Action? {
      if let timed = parsed.popFirst() {
        return await wait(timed.timing) ? timed.action : nil
      }
      while let raw = await lines?.next(isolation: actor) {
        guard let text = raw.text else {
          input.reject(InputError(line: raw.number, message: raw.problem ?? "unreadable line"))
          continue
        }
        let line: InputLine
        do {
          guard let parsed = try InputLine.parse(text, number: raw.number) else { continue }
          line = parsed
        } catch {
          input.reject(error)
          continue
        }
        guard await wait(line.timing) else { return nil }
        switch input.parse(line.body) {
        case .failure(let error):
          input.reject(InputError(line: raw.number, message: error.message))
        case .success(let action):
          return action
        }
      }
      return nil
    }

    /// Waits for the line's time; `false` when cancelled meanwhile.
    private nonisolated(nonsending) func wait(_ timing: InputLine.Timing) async -> Bool {
      let delay: Duration
      switch timing {
      case .now: return !Task.isCancelled
      case .after(let duration): delay = duration
      case .at(let offset): delay = offset - input.elapsed()
      }
      guard delay > .zero else { return !Task.isCancelled }
      do {
        try await input.clock.sleep(for: delay)
        return true
      } catch {
        return false
      }
    }
  }
}

/// An action and when it applies, parsed once from an argument in the input-line grammar.
package struct TimedAction<Action: Sendable>: Sendable {
  package let timing: InputLine.Timing
  package let action: Action

  /// Parses arguments such as `+`, `+300ms d` or `@2s cancel`, all or nothing; blank ones and
  /// comments are skipped.
  /// - Throws: The first bad argument's problem, numbered from 1.
  package static func parse(
    _ texts: [String], as parse: (String) -> Result<Action, InputError>
  ) throws(InputError) -> [TimedAction] {
    var actions: [TimedAction] = []
    for (index, text) in texts.enumerated() {
      guard let line = try InputLine.parse(text, number: index + 1) else { continue }
      switch parse(line.body) {
      case .success(let action): actions.append(TimedAction(timing: line.timing, action: action))
      case .failure(let error): throw InputError(line: index + 1, message: error.message)
      }
    }
    return actions
  }
}
