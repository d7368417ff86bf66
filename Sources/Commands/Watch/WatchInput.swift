/// A flow's input under `--watch`: the actions given before (a script), then one `action` for
/// each burst of file changes, on the run's clock.
///
/// The first change of a burst is an action at once (the leading edge), with every change
/// already read; then `settle` is waited on the run's clock, and the changes that came
/// meanwhile are one more action at its end, which waits `settle` again. So a save that writes
/// several files, or a file in several writes, is one action or two: under `latest` the first
/// run is cancelled and restarted once, with every write in. `settle` of zero makes every
/// change read an action. The input ends only when the watcher does: the run goes on until it is
/// stopped.
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
  ///   - settle: How long after an action the changes that follow it are gathered into one more.
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
    /// An action was just given: the changes of the next `settle` are one more.
    var settling = false

    package mutating func next() async -> Action? { await next(isolation: #isolation) }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Action? {
      if var script = before {
        if let action = await script.next(isolation: actor) {
          before = script
          return action
        }
        before = nil
      }
      if settling {
        do {
          try await input.clock.sleep(for: input.settle)
        } catch {
          return nil
        }
        var changed = false
        while changes.nextReady() != nil { changed = true }
        if changed { return input.action }
        settling = false
      }
      guard await changes.next(isolation: actor) != nil else { return nil }
      while changes.nextReady() != nil {}
      settling = input.settle > .zero
      return input.action
    }
  }
}
