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

  let lines: AsyncStream<RawLine>
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
    lines: AsyncStream<RawLine>, clock: any Clock<Duration>,
    elapsed: @escaping @Sendable () -> Duration,
    parse: @escaping @Sendable (String) -> Result<Action, InputError>,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.lines = lines
    self.clock = clock
    self.elapsed = elapsed
    self.parse = parse
    self.reject = reject
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(input: self, lines: lines.makeAsyncIterator())
  }

  /// Reads, waits and parses one action at a time.
  package struct Iterator: AsyncIteratorProtocol {
    let input: ScriptedInput
    var lines: AsyncStream<RawLine>.Iterator

    package mutating func next() async -> Action? {
      while let raw = await lines.next() {
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
    private func wait(_ timing: InputLine.Timing) async -> Bool {
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
