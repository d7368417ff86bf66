import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A signal that arrives right after `watch()` returns is delivered, not lost.
///
/// Found while running the thread-sanitizer suite (a search test's SIGINT was ignored), then
/// measured on the plain build with dispatch signal sources: of 100 `loadctl profile --json` runs
/// sent SIGINT right after the `start` line, 86 died without an `end` event (the watcher was not
/// installed yet) and 5 ignored the signal (SIG_IGN was set before libdispatch registered its
/// handler). Main fixed both (a self-pipe handler installed by `watch()` before `start`); this
/// pins the part that lives in Core.
@Suite struct UnixSignalsRegressionTests {
  @Test func aSignalRightAfterWatchReturnsIsDelivered() async {
    let signals = UnixSignals([.terminate]).watch()
    kill(getpid(), SIGTERM)
    let first = await withTaskGroup(of: UnixSignal?.self) { group in
      group.addTask {
        var iterator = signals.makeAsyncIterator()
        return await iterator.next()
      }
      group.addTask {
        // A failsafe, not a wait for the result: a lost signal fails the test instead of hanging.
        try? await ContinuousClock().sleep(for: .seconds(10))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    #expect(first == .terminate)
  }
}
