#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One running ``Subprocess``: its pids and pipes, and the reader thread that serves them.
///
/// The reader thread `poll`s a wake pipe, stdout (only while the buffer has room), stderr and a
/// pidfd (or, without one, a short tick), so one wait covers every event: data, the consumer
/// taking data or leaving, the command's exit and the SIGKILL deadline. It alone signals and
/// reaps. Consumers (one at a time) take stdout with `next()` and the outcome with `finished()`.
///
/// It knows which signals it sent: a command that died by a signal of its own teardown ended
/// ``Ending/byTeardown``; one killed by anyone else did not. Once the command is reaped (and its
/// group killed), only the bytes already in the pipes are read: whatever still holds them open
/// (a process that left the group) is not waited for.
package final class ChildProcess: Sendable {
  /// The most stdout bytes read but not yet taken by the consumer.
  static let bound = 64 * 1024

  package struct Ending: Sendable {
    var termination: Subprocess.Termination
    var stderrTail: [String]
    /// The command died by a signal that this process's teardown sent (SIGTERM or SIGKILL).
    package var byTeardown = false
    /// The teardown sent SIGKILL: the command was still alive after its `killAfter` grace.
    package var neededKill = false
    /// The teardown had signalled the group before the command ended: its end, a signal or an
    /// exit status of its own (`trap 'exit 3' TERM`), answers the teardown.
    package var afterTeardown = false
  }

  /// Bytes from one of the command's pipes, for ``nextChunk()``.
  struct Chunk {
    var pipe: ReaderMachine.Pipe
    var bytes: [UInt8]
  }

  private struct State {
    var pending: [UInt8] = []
    /// Stderr bytes not yet taken, when the command streams stderr (at most ``bound``).
    var pendingErr: [UInt8] = []
    /// Stderr bytes dropped because ``pendingErr`` was full.
    var droppedErr = 0
    /// The most `pending` ever held; tests check it against ``bound``.
    var peak = 0
    var readerWaits = false
    var stdoutEnded = false
    var stderrEnded = false
    var stopping = false
    var lifeline: Int32
    var consumer: CheckedContinuation<Chunk?, Never>?
    var ending: Ending?
    var waiter: CheckedContinuation<Ending, Never>?
  }

  let pid: pid_t
  /// The lifeline watcher, the leader of the command's process group.
  let watcher: pid_t
  /// The process group of the command and its watcher (the watcher's pid).
  var group: pid_t { watcher }
  private let command: Subprocess
  private let stdout: Int32
  private let stderr: Int32
  private let pidfd: Int32
  private let wake: (read: Int32, write: Int32)
  private let state: Locked<State>
  /// The command's number in its tag while orphans are adopted, else `nil`.
  private let number: Int?

  init(
    _ command: Subprocess, pid: pid_t, watcher: pid_t, stdout: Int32, stderr: Int32,
    pidfd: Int32, wake: (read: Int32, write: Int32), lifeline: Int32, number: Int?
  ) {
    (self.command, self.pid, self.watcher, self.stdout, self.stderr) =
      (command, pid, watcher, stdout, stderr)
    (self.pidfd, self.wake, state) = (pidfd, wake, Locked(State(lifeline: lifeline)))
    self.number = number
  }

  deinit {
    close(wake.read)
    close(wake.write)
  }

  var peakBuffered: Int { state.withLock { $0.peak } }

  /// The stderr bytes dropped so far because the consumer had not taken the ones before (with
  /// ``Subprocess/streamsStderr``).
  var droppedStderr: Int { state.withLock { $0.droppedErr } }

  /// Whether the command died by a signal of its teardown; `false` until it was reaped.
  package var endedByTeardown: Bool { state.withLock { $0.ending?.byTeardown ?? false } }
  /// Whether the command ended after the teardown signalled it (``Ending/afterTeardown``).
  package var endedAfterTeardown: Bool {
    state.withLock { $0.ending?.afterTeardown ?? false }
  }

  /// Consumer: the next stdout bytes, waiting for some; `nil` at the end or once stopped.
  func next() async -> [UInt8]? {
    await nextChunk()?.bytes
  }

  /// Consumer: the next bytes of stdout or (with ``Subprocess/streamsStderr``) stderr, waiting
  /// for some; `nil` once every streamed pipe has ended, or once stopped.
  func nextChunk() async -> Chunk? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Chunk?, Never>) in
      let (ready, poke) = state.withLock { state -> (Chunk??, Bool) in
        if !state.pendingErr.isEmpty {
          defer { state.pendingErr = [] }
          return (Chunk(pipe: .stderr, bytes: state.pendingErr), false)
        }
        if !state.pending.isEmpty {
          defer { (state.pending, state.readerWaits) = ([], false) }
          return (Chunk(pipe: .stdout, bytes: state.pending), state.readerWaits)
        }
        if isDrained(state) || state.stopping { return (.some(nil), false) }
        state.consumer = continuation
        return (nil, false)
      }
      if poke { self.poke() }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// Whether every pipe the consumer reads has ended (and its bytes were taken).
  private func isDrained(_ state: State) -> Bool {
    state.stdoutEnded && (state.stderrEnded || !command.streamsStderr)
  }

  /// Consumer: waits until the command is reaped and its group killed.
  func finished() async -> Ending {
    await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
      let ending = state.withLock { state -> Ending? in
        if state.ending == nil { state.waiter = continuation }
        return state.ending
      }
      if let ending { continuation.resume(returning: ending) }
    }
  }

  /// Consumer: it is done (or cancelled); tears the group down unless it has ended. Idempotent.
  func stop() {
    let consumer = state.withLock { state in
      state.stopping = true
      defer { state.consumer = nil }
      return state.consumer
    }
    consumer?.resume(returning: nil)
    poke()
  }

  /// Closes this process's end of the lifeline, as its death would (tests; reaping).
  func closeLifeline() {
    let fd = state.withLock { state in
      defer { state.lifeline = -1 }
      return state.lifeline
    }
    if fd >= 0 { close(fd) }
  }

  private func poke() {
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
  }

  /// The machine's poll timeout in ms (-1: none), at most ``reapInterval`` while adopting, so
  /// that a reader of a command that runs on reaps the adopted processes that end meanwhile.
  static func pollTimeout(_ timeout: Int32, adopting: Bool) -> Int32 {
    guard adopting else { return timeout }
    let interval = Int32(reapInterval / .milliseconds(1))
    return timeout < 0 ? interval : min(timeout, interval)
  }

  /// Reader thread: serves the pipes until the command is reaped and stdout and stderr closed,
  /// doing what its ``ReaderMachine`` decides.
  func run() {
    var (out, err) = (stdout, stderr)
    var tail = StderrTail(maxLines: command.stderrTailLines)
    var buffer = [UInt8](repeating: 0, count: Self.bound)
    /// Whether the teardown has signalled the group.
    var signalled = false
    var machine = ReaderMachine(killAfter: command.killAfter, hasPidfd: pidfd >= 0)
    /// Whether this process adopts orphans: then the reader also reaps the ones that ended.
    let adopting = Subprocesses.isAdopting
    var action = ReaderMachine.Action.checkConsumer
    while true {
      switch action {
      case .checkConsumer:
        let (stopping, room) = state.withLock { state in
          let room = state.stopping ? Self.bound : Self.bound - state.pending.count
          state.readerWaits = room == 0
          return (state.stopping, room)
        }
        action = machine.consumerChecked(stopping: stopping, room: room, now: .now)
      case .reap:
        if let termination = reap(signalled: signalled) {
          // What the group wrote is in the pipes by now; anything after it comes from outside.
          let holding = (Self.readable(out), Self.readable(err))
          action = machine.reaped(termination, holding: holding, now: .now)
        } else {
          action = machine.stillRunning(now: .now)
        }
      case .checkExiting:
        action = machine.exitChecked(exiting: Self.isExiting(pid), now: .now)
      case .terminate:
        // SIGCONT too: a stopped process acts on SIGTERM only once continued.
        kill(-group, SIGTERM)
        kill(-group, SIGCONT)
        signalled = true
        action = machine.terminated(now: .now)
      case .announceKillDue(let due):
        Subprocesses.registry.withLock { $0.lastKillDue = max($0.lastKillDue ?? due, due) }
        action = machine.killDueAnnounced(now: .now)
      case .poll(let descriptors, let timeout):
        let watched: [(ReaderMachine.Descriptors, Int32)] =
          [(.stdout, out), (.stderr, err), (.pidfd, pidfd)]
        var fds = ([wake.read] + watched.map { descriptors.contains($0) ? $1 : -1 }).map {
          pollfd(fd: $0, events: Int16(POLLIN), revents: 0)
        }
        _ = poll(&fds, nfds_t(fds.count), Self.pollTimeout(timeout, adopting: adopting))
        if adopting { Self.reapEndedOrphansIfDue() }
        if fds[0].revents != 0 { _ = read(wake.read, &buffer, 64) }
        var ready: ReaderMachine.Descriptors = []
        for (index, (descriptor, _)) in watched.enumerated() where fds[index + 1].revents != 0 {
          ready.insert(descriptor)
        }
        action = machine.polled(ready, now: .now)
      case .readOut(let upTo):
        let count = read(out, &buffer, upTo)
        let result = ReaderMachine.Read(count: count, errno: errno)
        if count > 0 { deliver(Array(buffer[..<count])) }
        action = machine.readOut(result, now: .now)
      case .readErr(let upTo):
        let count = read(err, &buffer, upTo)
        let result = ReaderMachine.Read(count: count, errno: errno)
        if count > 0 {
          tail.append(buffer[..<count])
          if command.streamsStderr { deliverErr(Array(buffer[..<count])) }
        }
        action = machine.readErr(result, now: .now)
      case .close(.stdout):
        close(out)
        out = -1
        endStdout()
        action = machine.closed(.stdout, now: .now)
      case .close(.stderr):
        close(err)
        err = -1
        endStderr()
        action = machine.closed(.stderr, now: .now)
      case .kill:
        kill(-group, SIGKILL)
        signalled = true
        action = machine.killed(now: .now)
      case .finish(let termination, let byTeardown, let neededKill):
        if pidfd >= 0 { close(pidfd) }
        finish(
          Ending(
            termination: termination, stderrTail: tail.finish(), byTeardown: byTeardown,
            neededKill: neededKill, afterTeardown: signalled))
        return
      }
    }
  }

  /// `waitpid(WNOHANG)`: once the command has ended, drops it from the registry, reaps its group
  /// and returns how it ended; `nil` while it runs.
  /// - Parameter signalled: The teardown signalled the group: what is still in it is dying.
  private func reap(signalled: Bool) -> Subprocess.Termination? {
    // The process is ending and killed this group: the death is not the command's to report.
    while Subprocesses.isExiting { pause() }
    var status: Int32 = 0
    let reaped = waitpid(pid, &status, WNOHANG)
    guard reaped == pid || (reaped < 0 && errno == ECHILD) else { return nil }
    Subprocesses.registry.withLock { _ = $0.known.remove(pid) }
    let termination = reaped == pid ? Subprocess.Termination(status: status) : .exited(-1)
    // Only a command that exited by itself, its group unsignalled, left the rest of its group
    // running; after a signal to the group (the teardown's, or anyone's) the rest is dying too.
    var exitedByItself = false
    if case .exited = termination, !signalled { exitedByItself = true }
    reapGroup(countingSurvivors: exitedByItself)
    return termination
  }

  /// Whether `pid` has begun to exit (`PF_EXITING` in `/proc/PID/stat`'s flags), so that a
  /// signal sent now would not be what ends it.
  private static func isExiting(_ pid: pid_t) -> Bool {
    #if os(Linux)
      let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else { return false }
      defer { close(fd) }
      var bytes = [UInt8](repeating: 0, count: 1024)
      let count = read(fd, &bytes, bytes.count)
      guard count > 0, let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else {
        return false
      }
      // After "pid (comm)": state ppid pgrp session tty_nr tpgid flags …
      let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
      guard fields.count > 6, let flags = UInt(String(decoding: fields[6], as: UTF8.self)) else {
        return false
      }
      let exiting: UInt = 0x4  // PF_EXITING, <linux/sched.h>
      return flags & exiting != 0
    #else
      return false
    #endif
  }

  /// The bytes waiting in pipe `fd` (0 for a closed one).
  private static func readable(_ fd: Int32) -> Int {
    guard fd >= 0 else { return 0 }
    var count: Int32 = 0
    let result = withUnsafeMutablePointer(to: &count) { ioctl(fd, UInt(FIONREAD), $0) }
    return result == 0 ? Int(count) : 0
  }

  /// The command is reaped: kills what is left of its group, reaps the watcher, drops the group,
  /// and kills what the command started outside it (see ``Subprocesses/adoptOrphans()``).
  /// - Parameter countingSurvivors: Count what is still alive in the group as left behind.
  private func reapGroup(countingSurvivors: Bool) {
    var leftBehind =
      countingSurvivors && Subprocesses.isAdopting
      ? Self.survivors(in: group, besides: watcher) : 0
    kill(-group, SIGKILL)
    Subprocesses.registry.withLock { $0.groups.removeAll { $0 == group } }
    var status: Int32 = 0
    while waitpid(watcher, &status, 0) < 0, errno == EINTR {}
    Subprocesses.registry.withLock { _ = $0.known.remove(watcher) }
    closeLifeline()
    if let number {
      Subprocesses.registry.withLock { _ = $0.tags.remove(number) }
      leftBehind += Self.killOrphans(of: number, group: group)
    }
    if leftBehind > 0, !Subprocesses.isExiting {
      Subprocesses.notify(.leftBehind(command: command.label, count: leftBehind))
    }
  }

  private func deliver(_ bytes: [UInt8]) {
    let consumer = state.withLock { state -> CheckedContinuation<Chunk?, Never>? in
      if state.stopping { return nil }
      if let consumer = state.consumer {
        state.consumer = nil
        return consumer
      }
      state.pending += bytes
      state.peak = max(state.peak, state.pending.count)
      return nil
    }
    consumer?.resume(returning: Chunk(pipe: .stdout, bytes: bytes))
  }

  /// Hands stderr bytes to the consumer; past ``bound`` bytes it has not taken, they are
  /// dropped and counted: stderr is read whatever the consumer does, so the command never
  /// blocks on it.
  private func deliverErr(_ bytes: [UInt8]) {
    let consumer = state.withLock { state -> CheckedContinuation<Chunk?, Never>? in
      if state.stopping { return nil }
      if let consumer = state.consumer {
        state.consumer = nil
        return consumer
      }
      if state.pendingErr.count + bytes.count <= Self.bound {
        state.pendingErr += bytes
      } else {
        state.droppedErr += bytes.count
      }
      return nil
    }
    consumer?.resume(returning: Chunk(pipe: .stderr, bytes: bytes))
  }

  private func endStdout() {
    let consumer = state.withLock { state in
      state.stdoutEnded = true
      return isDrained(state) ? state.consumer.take() : nil
    }
    consumer?.resume(returning: nil)
  }

  private func endStderr() {
    let consumer = state.withLock { state in
      state.stderrEnded = true
      return isDrained(state) ? state.consumer.take() : nil
    }
    consumer?.resume(returning: nil)
  }

  private func finish(_ ending: Ending) {
    if ending.neededKill, !Subprocesses.isExiting {
      Subprocesses.notify(.neededKill(command: command.label, grace: command.killAfter))
    }
    let waiter = state.withLock { state in
      state.ending = ending
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: ending)
  }
}
