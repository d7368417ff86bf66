/// A flow's input under `--watch`: the actions given before (a script), then one `action` for
/// each burst of file changes, on the run's clock.
///
/// A change starts a wait of `settle` on the run's clock; the changes that come meanwhile are
/// taken with it, so that a save that writes several files, or a file in several writes, is one
/// action. The input ends only when the watcher does: the run goes on until it is stopped.
package struct WatchInput<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  let before: AnyInput<Action>?
  let changes: RawLines
  let action: Action
  let settle: Duration
  let clock: any Clock<Duration>

  /// - Parameters:
  ///   - before: Actions applied first, as they come (the arguments' script).
  ///   - changes: The watcher's changes (``FileWatcher/changes``).
  ///   - action: What each burst of changes does.
  ///   - settle: How long a burst waits for the changes that follow its first.
  package init(
    before: AnyInput<Action>?, changes: RawLines, action: Action, settle: Duration,
    clock: any Clock<Duration>
  ) {
    (self.before, self.changes, self.action, self.settle, self.clock) =
      (before, changes, action, settle, clock)
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(
      before: before?.makeAsyncIterator(), changes: changes.makeAsyncIterator(), input: self)
  }

  package struct Iterator: AsyncIteratorProtocol {
    var before: AnyInput<Action>.Iterator?
    var changes: RawLines.Iterator
    let input: WatchInput

    package mutating func next() async -> Action? { await next(isolation: #isolation) }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Action? {
      if var script = before {
        if let action = await script.next(isolation: actor) {
          before = script
          return action
        }
        before = nil
      }
      guard await changes.next(isolation: actor) != nil else { return nil }
      do {
        try await input.clock.sleep(for: input.settle)
      } catch {
        return nil
      }
      while changes.nextReady() != nil {}
      return input.action
    }
  }
}
