#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ChildProcess {
  /// The decisions of the reader thread (``ChildProcess/run()``) without its syscalls: what to
  /// poll and for how long, what to read, when to reap, signal and close, and the ``Ending``.
  ///
  /// Each event reports the outcome of the last ``Action`` and returns the next one. The first
  /// action is ``Action/checkConsumer``, the last ``Action/finish(_:byTeardown:neededKill:)``;
  /// an event that does not answer the action just returned stops with `preconditionFailure`.
  /// It reads no clock: every event says when it happened (`now`).
  ///
  /// A turn: check the consumer; on its first stop, try to reap (a command that already died
  /// is not signalled), else tear down: SIGTERM and SIGCONT unless the command is already
  /// exiting, SIGKILL due after `killAfter`. Then poll; read stdout, then stderr, whichever is
  /// ready; reap when the pidfd is ready (every turn without a pidfd, polling on a tick that
  /// doubles from 1 ms to 50 ms); send SIGKILL once due. Once reaped, each pipe gives only the
  /// bytes it held then and is closed; when both are closed the machine finishes.
  struct ReaderMachine {
    /// What the reader thread does next; the matching event reports how it went.
    enum Action: Equatable {
      /// Take `stopping` and the buffer's room (marking the reader as waiting when there is none):
      /// ``consumerChecked(stopping:room:now:)``.
      case checkConsumer
      /// `waitpid` with `WNOHANG`; when reaped, kill the group and measure what the pipes hold:
      /// ``reaped(_:holding:now:)`` or ``stillRunning(now:)``.
      case reap
      /// Whether the command has begun to exit: ``exitChecked(exiting:now:)``.
      case checkExiting
      /// SIGTERM, then SIGCONT, to the group: ``terminated(now:)``.
      case terminate
      /// Record when this teardown's SIGKILL is due: ``killDueAnnounced(now:)``.
      case announceKillDue(ContinuousClock.Instant)
      /// Poll the wake pipe (draining it when ready) and `descriptors`, for `timeout` ms (-1:
      /// no limit): ``polled(_:now:)`` with those that are ready.
      case poll(Descriptors, timeout: Int32)
      /// Read at most `upTo` stdout bytes and deliver them: ``readOut(_:now:)``.
      case readOut(upTo: Int)
      /// Read at most `upTo` stderr bytes into the tail: ``readErr(_:now:)``.
      case readErr(upTo: Int)
      /// Close the pipe (stdout: ending the consumer's stream): ``closed(_:now:)``.
      case close(Pipe)
      /// SIGKILL to the group: ``killed(now:)``.
      case kill
      /// Report the ending and stop; no event follows. `byTeardown`: the command died by a
      /// signal the teardown sent; `neededKill`: the teardown sent SIGKILL, the command being
      /// still alive once `killAfter` had passed.
      case finish(Subprocess.Termination, byTeardown: Bool, neededKill: Bool)
    }

    enum Pipe: Equatable { case stdout, stderr }

    /// The descriptors of a poll besides the wake pipe.
    struct Descriptors: OptionSet, CustomStringConvertible {
      let rawValue: UInt8
      static let stdout = Descriptors(rawValue: 1)
      static let stderr = Descriptors(rawValue: 2)
      static let pidfd = Descriptors(rawValue: 4)

      /// `[stdout, pidfd]`.
      var description: String {
        let names = [(Self.stdout, "stdout"), (.stderr, "stderr"), (.pidfd, "pidfd")]
        return "[\(names.filter { contains($0.0) }.map(\.1).joined(separator: ", "))]"
      }
    }

    /// The outcome of a `read` from a pipe.
    enum Read: Equatable {
      /// That many bytes (more than zero).
      case bytes(Int)
      /// The end of the pipe, or an error that will not pass.
      case end
      /// Interrupted or would block: read again when it is ready.
      case again

      init(count: Int, errno: Int32) {
        let retry = count < 0 && (errno == EINTR || errno == EAGAIN)
        self = count > 0 ? .bytes(count) : retry ? .again : .end
      }
    }

    private enum Command {
      case running
      /// Teardown began (SIGTERM sent unless it was exiting); SIGKILL is due at `killDue`.
      case tearingDown(killDue: ContinuousClock.Instant)
      /// Teardown sent SIGKILL.
      case killed
      case reaped(Subprocess.Termination)
    }

    private enum Stream: Equatable {
      case open
      /// Reaped: `left` more bytes (more than zero) are read, then it is closed.
      case draining(left: Int)
      /// Asked to be closed.
      case closing
      case closed
    }

    /// Where a turn goes on once an action is answered.
    private enum Stage { case poll, stdout, stderr, reap, deadline, end }

    /// The action whose answer is awaited.
    private enum Step {
      case checkConsumer
      /// `beforeTeardown`: the reap of a first stop, which a teardown follows if it fails.
      case reap(beforeTeardown: Bool)
      case checkExiting
      case terminate
      case announceKillDue
      case poll(Descriptors)
      case read(Pipe, upTo: Int)
      case close(Pipe, then: Stage)
      case kill
      case finished
    }

    private let killAfter: Duration
    private let hasPidfd: Bool
    private let chunk: Int
    private var step = Step.checkConsumer
    private var command = Command.running
    private var stdout = Stream.open
    private var stderr = Stream.open
    /// Signals the teardown sent to the group while the command ran.
    private var sent: Set<Int32> = []
    /// The buffer's room, as of this turn's consumer check.
    private var room = 0
    /// What this turn's poll found ready.
    private var ready: Descriptors = []
    /// The next poll timeout without a pidfd, in ms.
    private var tick: Int32 = 1

    /// For a command whose teardown waits `killAfter` after SIGTERM, whose exit a pidfd signals
    /// (`hasPidfd`, else it is reaped on a tick), read at most `chunk` bytes at a time.
    init(killAfter: Duration, hasPidfd: Bool, chunk: Int = ChildProcess.bound) {
      (self.killAfter, self.hasPidfd, self.chunk) = (killAfter, hasPidfd, chunk)
    }

    /// Answers ``Action/checkConsumer``: whether the consumer stopped, and the stdout bytes the
    /// buffer can take.
    mutating func consumerChecked(stopping: Bool, room: Int, now: ContinuousClock.Instant)
      -> Action
    {
      guard case .checkConsumer = step else { unexpected("a consumer check") }
      self.room = room
      // A command that already died, or is dying (its stdout just ended because it is exiting,
      // killed by someone else), is reaped, not signalled: its death is its own.
      if stopping, case .running = command {
        step = .reap(beforeTeardown: true)
        return .reap
      }
      return poll(now: now)
    }

    /// Answers ``Action/reap``: the command was reaped (and its group killed); `holding` is what
    /// each pipe held then.
    mutating func reaped(
      _ termination: Subprocess.Termination, holding: (stdout: Int, stderr: Int),
      now: ContinuousClock.Instant
    ) -> Action {
      guard case .reap(let beforeTeardown) = step else { unexpected("a reap") }
      command = .reaped(termination)
      for (pipe, held) in [(Pipe.stdout, holding.stdout), (.stderr, holding.stderr)]
      where self[keyPath: Self.stream(pipe)] == .open {
        self[keyPath: Self.stream(pipe)] = held > 0 ? .draining(left: held) : .closing
      }
      return closeOrGo(to: beforeTeardown ? .poll : .end, now: now)
    }

    /// Answers ``Action/reap``: the command has not ended.
    mutating func stillRunning(now: ContinuousClock.Instant) -> Action {
      guard case .reap(let beforeTeardown) = step else { unexpected("a reap") }
      guard beforeTeardown else { return go(to: .deadline, now: now) }
      step = .checkExiting
      return .checkExiting
    }

    /// Answers ``Action/checkExiting``: an exiting command is not signalled, its death is its own.
    mutating func exitChecked(exiting: Bool, now: ContinuousClock.Instant) -> Action {
      guard case .checkExiting = step else { unexpected("an exit check") }
      guard !exiting else { return announceKillDue(now: now) }
      sent.insert(SIGTERM)
      step = .terminate
      return .terminate
    }

    /// Answers ``Action/terminate``.
    mutating func terminated(now: ContinuousClock.Instant) -> Action {
      guard case .terminate = step else { unexpected("SIGTERM") }
      return announceKillDue(now: now)
    }

    /// Answers ``Action/announceKillDue(_:)``.
    mutating func killDueAnnounced(now: ContinuousClock.Instant) -> Action {
      guard case .announceKillDue = step else { unexpected("a kill due") }
      return poll(now: now)
    }

    /// Answers ``Action/poll(_:timeout:)`` with the descriptors that are ready.
    mutating func polled(_ ready: Descriptors, now: ContinuousClock.Instant) -> Action {
      guard case .poll(let polled) = step else { unexpected("a poll") }
      guard polled.isSuperset(of: ready) else {
        preconditionFailure("ready: \(ready), polled only \(polled)")
      }
      self.ready = ready
      return go(to: .stdout, now: now)
    }

    /// Answers ``Action/readOut(upTo:)``.
    mutating func readOut(_ read: Read, now: ContinuousClock.Instant) -> Action {
      self.read(.stdout, read)
      return closeOrGo(to: .stderr, now: now)
    }

    /// Answers ``Action/readErr(upTo:)``.
    mutating func readErr(_ read: Read, now: ContinuousClock.Instant) -> Action {
      self.read(.stderr, read)
      return closeOrGo(to: .reap, now: now)
    }

    /// Answers ``Action/close(_:)``.
    mutating func closed(_ pipe: Pipe, now: ContinuousClock.Instant) -> Action {
      guard case .close(pipe, let then) = step else { unexpected("closing \(pipe)") }
      self[keyPath: Self.stream(pipe)] = .closed
      return closeOrGo(to: then, now: now)
    }

    /// Answers ``Action/kill``.
    mutating func killed(now: ContinuousClock.Instant) -> Action {
      guard case .kill = step else { unexpected("SIGKILL") }
      return go(to: .end, now: now)
    }

    private var isReaped: Bool {
      if case .reaped = command { true } else { false }
    }

    private static func stream(_ pipe: Pipe) -> WritableKeyPath<Self, Stream> {
      switch pipe {
      case .stdout: \.stdout
      case .stderr: \.stderr
      }
    }

    private mutating func announceKillDue(now: ContinuousClock.Instant) -> Action {
      let due = now + killAfter
      command = .tearingDown(killDue: due)
      step = .announceKillDue
      return .announceKillDue(due)
    }

    private mutating func poll(now: ContinuousClock.Instant) -> Action {
      var descriptors: Descriptors = []
      if room > 0, stdout != .closed { descriptors.insert(.stdout) }
      if stderr != .closed { descriptors.insert(.stderr) }
      var timeout: Int32 = -1
      if !isReaped {
        if hasPidfd {
          descriptors.insert(.pidfd)
        } else {
          (timeout, tick) = (tick, min(tick * 2, 50))
        }
      }
      if case .tearingDown(let due) = command {
        let left = (now.duration(to: due) / .milliseconds(1)).rounded(.up)
        timeout = Int32(min(max(left, 0), timeout < 0 ? 60_000 : Double(timeout)))
      }
      step = .poll(descriptors)
      return .poll(descriptors, timeout: timeout)
    }

    private mutating func read(_ pipe: Pipe, _ read: Read) {
      guard case .read(pipe, let upTo) = step else { unexpected("reading \(pipe)") }
      let stream = Self.stream(pipe)
      switch (self[keyPath: stream], read) {
      case (_, .bytes(let count)) where count <= 0 || count > upTo:
        preconditionFailure("read \(count) bytes of \(pipe), asked for at most \(upTo)")
      case (.draining(let left), .bytes(let count)):
        self[keyPath: stream] = left > count ? .draining(left: left - count) : .closing
      case (_, .end):
        self[keyPath: stream] = .closing
      case (_, .bytes), (_, .again):
        break
      }
    }

    /// Asks to close a pipe that must be, else goes on to `stage`.
    private mutating func closeOrGo(to stage: Stage, now: ContinuousClock.Instant) -> Action {
      for pipe in [Pipe.stdout, .stderr] where self[keyPath: Self.stream(pipe)] == .closing {
        step = .close(pipe, then: stage)
        return .close(pipe)
      }
      return go(to: stage, now: now)
    }

    /// The rest of the turn from `stage`: the first thing to do there or after it.
    private mutating func go(to stage: Stage, now: ContinuousClock.Instant) -> Action {
      switch stage {
      case .poll where isReaped && stdout == .closed && stderr == .closed:
        // Nothing can come any more: a poll now would watch the wake pipe alone, with no end.
        return go(to: .end, now: now)
      case .poll:
        return poll(now: now)
      case .stdout where ready.contains(.stdout):
        let upTo = if case .draining(let left) = stdout { min(room, left) } else { room }
        step = .read(.stdout, upTo: upTo)
        return .readOut(upTo: upTo)
      case .stdout:
        return go(to: .stderr, now: now)
      case .stderr where ready.contains(.stderr):
        let upTo = if case .draining(let left) = stderr { min(chunk, left) } else { chunk }
        step = .read(.stderr, upTo: upTo)
        return .readErr(upTo: upTo)
      case .stderr:
        return go(to: .reap, now: now)
      case .reap where !isReaped && (!hasPidfd || ready.contains(.pidfd)):
        step = .reap(beforeTeardown: false)
        return .reap
      case .reap:
        return go(to: .deadline, now: now)
      case .deadline:
        guard case .tearingDown(let due) = command, now >= due else {
          return go(to: .end, now: now)
        }
        command = .killed
        sent.insert(SIGKILL)
        step = .kill
        return .kill
      case .end:
        guard case .reaped(let termination) = command, stdout == .closed, stderr == .closed else {
          step = .checkConsumer
          return .checkConsumer
        }
        step = .finished
        var byTeardown = false
        if case .signalled(let signal) = termination { byTeardown = sent.contains(signal) }
        return .finish(termination, byTeardown: byTeardown, neededKill: sent.contains(SIGKILL))
      }
    }

    private func unexpected(_ event: String) -> Never {
      preconditionFailure("\(event) is not the answer to \(step)")
    }
  }
}
