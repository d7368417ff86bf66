import Testing

@testable import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

private typealias Machine = ChildProcess.ReaderMachine

/// Everything a poll watches while the command runs, with a pidfd.
private let all: Machine.Descriptors = [.stdout, .stderr, .pidfd]
private let start = ContinuousClock.now

/// A machine with a pidfd (unless `hasPidfd` is false) whose consumer stops at `start` while the
/// command runs; it is left awaiting the answer to its `announceKillDue`.
private func stopped(
  killAfter: Duration = .seconds(2), hasPidfd: Bool = true, exiting: Bool = false,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Machine {
  var machine = Machine(killAfter: killAfter, hasPidfd: hasPidfd, chunk: 16)
  let at = sourceLocation
  try #require(
    machine.consumerChecked(stopping: true, room: 16, now: start) == .reap, sourceLocation: at)
  try #require(machine.stillRunning(now: start) == .checkExiting, sourceLocation: at)
  if exiting {
    try #require(
      machine.exitChecked(exiting: true, now: start) == .announceKillDue(start + killAfter),
      sourceLocation: at)
  } else {
    try #require(machine.exitChecked(exiting: false, now: start) == .terminate, sourceLocation: at)
    try #require(
      machine.terminated(now: start) == .announceKillDue(start + killAfter), sourceLocation: at)
  }
  return machine
}

/// The reader thread's decisions, event by event, with no process behind them.
@Suite struct ChildProcessReaderMachineTests {
  @Test func aCommandThatPrintsAndExitsEndsByItself() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled([.stdout], now: start) == .readOut(upTo: 16))
    try #require(machine.readOut(.bytes(5), now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 11, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled(all, now: start) == .readOut(upTo: 11))
    try #require(machine.readOut(.end, now: start) == .close(.stdout))
    try #require(machine.closed(.stdout, now: start) == .readErr(upTo: 16))
    try #require(machine.readErr(.end, now: start) == .close(.stderr))
    try #require(machine.closed(.stderr, now: start) == .reap)
    try #require(
      machine.reaped(.exited(0), holding: (0, 0), now: start)
        == .finish(.exited(0), byTeardown: false, neededKill: false))
  }

  @Test func aStopThatSIGTERMEndsWithinTheGraceNeedsNoKill() throws {
    var machine = try stopped()
    let later = start + .milliseconds(500)
    try #require(machine.killDueAnnounced(now: start) == .poll(all, timeout: 2_000))
    try #require(machine.polled([], now: later) == .checkConsumer)
    // Torn down once: the next turn neither reaps nor signals, it waits for the rest of the grace.
    try #require(
      machine.consumerChecked(stopping: true, room: 16, now: later) == .poll(all, timeout: 1_500))
    try #require(machine.polled([.pidfd], now: later) == .reap)
    try #require(
      machine.reaped(.signalled(SIGTERM), holding: (0, 0), now: later) == .close(.stdout))
    try #require(machine.closed(.stdout, now: later) == .close(.stderr))
    try #require(
      machine.closed(.stderr, now: later)
        == .finish(.signalled(SIGTERM), byTeardown: true, neededKill: false))
  }

  /// Whatever it then died of, and even when it was already exiting at the stop.
  @Test(arguments: [
    (false, Subprocess.Termination.signalled(SIGKILL), true), (true, .signalled(SIGKILL), true),
    (false, .exited(0), false),
  ])
  func aStopThatOutlastsTheGraceNeedsTheKill(
    exiting: Bool, termination: Subprocess.Termination, byTeardown: Bool
  ) throws {
    var machine = try stopped(exiting: exiting)
    let due = start + .seconds(2)
    try #require(machine.killDueAnnounced(now: start) == .poll(all, timeout: 2_000))
    try #require(machine.polled([], now: due) == .kill)
    try #require(machine.killed(now: due) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: true, room: 16, now: due) == .poll(all, timeout: -1))
    try #require(machine.polled([.pidfd], now: due) == .reap)
    try #require(machine.reaped(termination, holding: (0, 0), now: due) == .close(.stdout))
    try #require(machine.closed(.stdout, now: due) == .close(.stderr))
    try #require(
      machine.closed(.stderr, now: due)
        == .finish(termination, byTeardown: byTeardown, neededKill: true))
  }

  @Test func aCommandAlreadyDeadWhenStoppedIsReapedNotSignalled() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(machine.consumerChecked(stopping: true, room: 16, now: start) == .reap)
    try #require(
      machine.reaped(.signalled(SIGPIPE), holding: (3, 0), now: start) == .close(.stderr))
    try #require(machine.closed(.stderr, now: start) == .poll([.stdout], timeout: -1))
    try #require(machine.polled([.stdout], now: start) == .readOut(upTo: 3))
    try #require(machine.readOut(.bytes(3), now: start) == .close(.stdout))
    try #require(
      machine.closed(.stdout, now: start)
        == .finish(.signalled(SIGPIPE), byTeardown: false, neededKill: false))
  }

  /// Both pipes closed while the command ran; it died just before the stop's reap: nothing is
  /// left to poll for, so it finishes (a poll then would watch only the wake pipe, forever).
  @Test func aStopThatReapsACommandWithBothPipesClosedFinishesAtOnce() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled([.stdout, .stderr], now: start) == .readOut(upTo: 16))
    try #require(machine.readOut(.end, now: start) == .close(.stdout))
    try #require(machine.closed(.stdout, now: start) == .readErr(upTo: 16))
    try #require(machine.readErr(.end, now: start) == .close(.stderr))
    try #require(machine.closed(.stderr, now: start) == .checkConsumer)
    try #require(machine.consumerChecked(stopping: true, room: 16, now: start) == .reap)
    try #require(
      machine.reaped(.exited(0), holding: (0, 0), now: start)
        == .finish(.exited(0), byTeardown: false, neededKill: false))
  }

  @Test func aCommandAlreadyExitingWhenStoppedIsNotSignalled() throws {
    var machine = try stopped(exiting: true)
    try #require(machine.killDueAnnounced(now: start) == .poll(all, timeout: 2_000))
    try #require(machine.polled([.pidfd], now: start) == .reap)
    try #require(
      machine.reaped(.signalled(SIGTERM), holding: (0, 0), now: start) == .close(.stdout))
    try #require(machine.closed(.stdout, now: start) == .close(.stderr))
    // Someone else's SIGTERM: the teardown sent none.
    try #require(
      machine.closed(.stderr, now: start)
        == .finish(.signalled(SIGTERM), byTeardown: false, neededKill: false))
  }

  /// A teardown that sent SIGTERM claims only a death by SIGTERM.
  @Test(arguments: [
    (Subprocess.Termination.signalled(SIGTERM), true), (.signalled(SIGKILL), false),
    (.signalled(SIGINT), false), (.exited(0), false),
  ])
  func onlyTheTeardownsOwnSignalEndsByTeardown(
    termination: Subprocess.Termination, byTeardown: Bool
  )
    throws
  {
    var machine = try stopped()
    try #require(machine.killDueAnnounced(now: start) == .poll(all, timeout: 2_000))
    try #require(machine.polled([.pidfd], now: start) == .reap)
    try #require(machine.reaped(termination, holding: (0, 0), now: start) == .close(.stdout))
    try #require(machine.closed(.stdout, now: start) == .close(.stderr))
    try #require(
      machine.closed(.stderr, now: start)
        == .finish(termination, byTeardown: byTeardown, neededKill: false))
  }

  @Test func aFullBufferStopsStdoutReadsUntilThereIsRoom() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(
      machine.consumerChecked(stopping: false, room: 0, now: start)
        == .poll([.stderr, .pidfd], timeout: -1))
    try #require(machine.polled([.stderr], now: start) == .readErr(upTo: 16))
    try #require(machine.readErr(.bytes(3), now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 4, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled([.stdout], now: start) == .readOut(upTo: 4))
    try #require(machine.readOut(.bytes(4), now: start) == .checkConsumer)
  }

  @Test func afterTheReapOnlyWhatThePipesHeldIsReadThenTheyClose() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled([.pidfd], now: start) == .reap)
    try #require(machine.reaped(.exited(1), holding: (10, 4), now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 6, now: start)
        == .poll([.stdout, .stderr], timeout: -1))
    try #require(machine.polled([.stdout, .stderr], now: start) == .readOut(upTo: 6))
    try #require(machine.readOut(.bytes(6), now: start) == .readErr(upTo: 4))
    try #require(machine.readErr(.bytes(4), now: start) == .close(.stderr))
    try #require(machine.closed(.stderr, now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start)
        == .poll([.stdout], timeout: -1))
    try #require(machine.polled([.stdout], now: start) == .readOut(upTo: 4))
    try #require(machine.readOut(.again, now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start)
        == .poll([.stdout], timeout: -1))
    try #require(machine.polled([.stdout], now: start) == .readOut(upTo: 4))
    try #require(machine.readOut(.bytes(4), now: start) == .close(.stdout))
    try #require(
      machine.closed(.stdout, now: start)
        == .finish(.exited(1), byTeardown: false, neededKill: false))
  }

  @Test func aPipeThatEndsBeforeItsHeldBytesAreReadCloses() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: true, chunk: 16)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start) == .poll(all, timeout: -1))
    try #require(machine.polled([.pidfd], now: start) == .reap)
    try #require(machine.reaped(.exited(0), holding: (0, 8), now: start) == .close(.stdout))
    try #require(machine.closed(.stdout, now: start) == .checkConsumer)
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start)
        == .poll([.stderr], timeout: -1))
    try #require(machine.polled([.stderr], now: start) == .readErr(upTo: 8))
    try #require(machine.readErr(.end, now: start) == .close(.stderr))
    try #require(
      machine.closed(.stderr, now: start)
        == .finish(.exited(0), byTeardown: false, neededKill: false))
  }

  @Test func withoutAPidfdEveryTurnReapsOnATickThatBacksOffTo50ms() throws {
    var machine = Machine(killAfter: .seconds(2), hasPidfd: false, chunk: 16)
    var timeouts: [Int32] = []
    for _ in 0..<8 {
      let action = machine.consumerChecked(stopping: false, room: 16, now: start)
      guard case .poll(let descriptors, let timeout) = action, descriptors == [.stdout, .stderr]
      else {
        Issue.record("expected a poll of stdout and stderr, not \(action)")
        return
      }
      timeouts.append(timeout)
      try #require(machine.polled([], now: start) == .reap)
      try #require(machine.stillRunning(now: start) == .checkConsumer)
    }
    #expect(timeouts == [1, 2, 4, 8, 16, 32, 50, 50])
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start)
        == .poll([.stdout, .stderr], timeout: 50))
    try #require(machine.polled([], now: start) == .reap)
    try #require(machine.reaped(.exited(0), holding: (1, 1), now: start) == .checkConsumer)
    // Reaped: nothing is left to tick for.
    try #require(
      machine.consumerChecked(stopping: false, room: 16, now: start)
        == .poll([.stdout, .stderr], timeout: -1))
  }

  @Test func withoutAPidfdTheKillDueShortensTheTick() throws {
    var machine = try stopped(killAfter: .milliseconds(3), hasPidfd: false)
    let plain: Machine.Descriptors = [.stdout, .stderr]
    try #require(machine.killDueAnnounced(now: start) == .poll(plain, timeout: 1))
    try #require(machine.polled([], now: start + .milliseconds(1)) == .reap)
    try #require(machine.stillRunning(now: start + .milliseconds(1)) == .checkConsumer)
    let second = start + .milliseconds(1)
    try #require(
      machine.consumerChecked(stopping: true, room: 16, now: second) == .poll(plain, timeout: 2))
    try #require(machine.polled([], now: start + .microseconds(2_500)) == .reap)
    try #require(machine.stillRunning(now: start + .microseconds(2_500)) == .checkConsumer)
    let third = start + .microseconds(2_500)
    // 0.5 ms to the kill, rounded up, is shorter than the 4 ms tick.
    try #require(
      machine.consumerChecked(stopping: true, room: 16, now: third) == .poll(plain, timeout: 1))
    try #require(machine.polled([], now: start + .milliseconds(3)) == .reap)
    try #require(machine.stillRunning(now: start + .milliseconds(3)) == .kill)
    try #require(machine.killed(now: start + .milliseconds(3)) == .checkConsumer)
  }

  /// The poll of a teardown waits at most until SIGKILL is due, in whole ms rounded up, and at
  /// most a minute.
  @Test(arguments: [
    (Duration.zero, Duration.seconds(2), Int32(2_000)),
    (.milliseconds(500), .seconds(2), 1_500),
    (.microseconds(100), .seconds(2), 2_000),
    (.microseconds(1_999_001), .seconds(2), 1),
    (.seconds(3), .seconds(2), 0),
    (.zero, .seconds(100), 60_000),
  ])
  func aTeardownPollWaitsUntilTheKillIsDue(elapsed: Duration, killAfter: Duration, timeout: Int32)
    throws
  {
    var machine = try stopped(killAfter: killAfter)
    #expect(machine.killDueAnnounced(now: start + elapsed) == .poll(all, timeout: timeout))
  }

  @Test(arguments: [
    (5, 0, Machine.Read.bytes(5)), (0, 0, .end), (-1, EINTR, .again), (-1, EAGAIN, .again),
    (-1, EBADF, .end), (-1, EIO, .end),
  ])
  func aReadIsBytesTheEndOrAgain(count: Int, errno: Int32, read: ChildProcess.ReaderMachine.Read) {
    #expect(Machine.Read(count: count, errno: errno) == read)
  }
}
