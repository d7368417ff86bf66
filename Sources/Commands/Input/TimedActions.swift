import LoadctlCore

/// An action and when it applies, parsed once from an argument in the input-line grammar.
package struct TimedAction<Action: Sendable>: Sendable {
  package let timing: InputLine.Timing
  package let action: Action

  /// Parses arguments such as `+`, `+300ms d` or `@2s cancel`, all or nothing; blank ones and
  /// comments are skipped.
  /// - Throws: The first bad argument's problem, numbered from 1.
  package static func parse(
    _ texts: [String], as parse: (String) -> Result<Action, LineProblem>
  ) throws(InputError) -> [TimedAction] {
    var actions: [TimedAction] = []
    for (index, text) in texts.enumerated() {
      guard let line = try InputLine.parse(text, number: index + 1) else { continue }
      switch parse(line.body) {
      case .success(let action): actions.append(TimedAction(timing: line.timing, action: action))
      case .failure(let problem): throw InputError(line: index + 1, message: problem.message)
      }
    }
    return actions
  }
}

/// Actions parsed before the run (the counter's arguments), each applied at its time, in order.
package struct TimedActions<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  let actions: [TimedAction<Action>]
  let clock: LineClock

  package init(_ actions: [TimedAction<Action>], clock: LineClock) {
    self.actions = actions
    self.clock = clock
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(actions: actions[...], clock: clock)
  }

  /// Waits for each action's time, then returns it.
  package struct Iterator: AsyncIteratorProtocol {
    var actions: ArraySlice<TimedAction<Action>>
    let clock: LineClock
    /// The argument the last action came from, counting from 1.
    var number = 0

    package mutating func next() async -> Action? { await next(isolation: #isolation) }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Action? {
      guard let timed = actions.popFirst() else { return nil }
      number += 1
      return await clock.wait(for: timed.timing, line: number) ? timed.action : nil
    }
  }
}
