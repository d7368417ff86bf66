import Dispatch
import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The live state of one spawned child: its captured output, its end, and who waits for them.
///
/// Pipes are read on dedicated threads and the child is reaped on another, never on the
/// cooperative pool that blocking calls would starve. Waiters are continuations resumed the
/// moment their line, end of file or exit arrives; a timeout only fails a wait that would
/// otherwise hang. All mutable state sits behind `Locked`, so the class is plainly `Sendable`.
final class ProcessMonitor: Sendable {
  /// One of the two captured output streams.
  enum Stream: String, Sendable {
    case stdout, stderr
  }

  /// The child's pid.
  let pid: Int32
  /// The group the child runs in: its own pid unless it joined another (pipelines).
  let processGroup: Int32
  /// The command line, for messages.
  let label: String
  /// When the child was started.
  let startedAt: ContinuousClock.Instant
  private let state: Locked<MonitorState>
  private let stdinDescriptor: Locked<Int32?>

  /// Takes ownership of the parent's pipe ends and starts reading and reaping.
  ///
  /// - Parameters:
  ///   - stdout: The read end of the child's stdout pipe, or `nil` when not captured.
  ///   - stderr: The read end of the child's stderr pipe, or `nil` when not captured.
  ///   - stdin: The write end of the child's stdin pipe, or `nil`.
  init(
    pid: Int32, processGroup: Int32, label: String,
    stdout: Int32?, stderr: Int32?, stdin: Int32?
  ) {
    self.pid = pid
    self.processGroup = processGroup
    self.label = label
    let startedAt = ContinuousClock.now
    self.startedAt = startedAt
    var initial = MonitorState(label: label, startedAt: startedAt)
    if stdout == nil { initial.stdout.close() }
    if stderr == nil { initial.stderr.close() }
    self.state = Locked(initial)
    self.stdinDescriptor = Locked(stdin)
    if let stdout { startThread("stdout-\(pid)") { self.drain(stdout, into: .stdout) } }
    if let stderr { startThread("stderr-\(pid)") { self.drain(stderr, into: .stderr) } }
    startThread("reaper-\(pid)") { self.reap() }
  }

  // MARK: Waiting

  /// Suspends until a line of `stream` after the last matched one satisfies `predicate`.
  ///
  /// The predicate runs under the monitor's lock: it must not call back into the monitor.
  /// - Throws: `HarnessError` when the stream ends without a match or `timeout` passes first;
  ///   the message holds the output so far.
  func waitForLine(
    on stream: Stream, _ what: String, timeout: Duration,
    where predicate: @escaping @Sendable (String) -> Bool
  ) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
      let waiter = MonitorState.LineWaiter(
        stream: stream, what: what, predicate: predicate, continuation: continuation)
      let (id, wakeups) = state.withLock { state in
        let id = state.makeID()
        state.lineWaiters[id] = waiter
        return (id, state.collectWakeups())
      }
      wakeups.resume()
      after(timeout) { [weak self] in self?.expireLineWaiter(id, timeout: timeout) }
    }
  }

  /// Suspends until the child has exited and both captured streams reached end of file.
  ///
  /// - Throws: `HarnessError` after `timeout`; the process group then gets SIGKILL so that a
  ///   hung child does not outlive the test.
  func waitForExit(timeout: Duration) async throws -> Termination {
    try await withCheckedThrowingContinuation { continuation in
      let (id, wakeups) = state.withLock { state in
        let id = state.makeID()
        state.exitWaiters[id] = continuation
        return (id, state.collectWakeups())
      }
      wakeups.resume()
      after(timeout) { [weak self] in self?.expireExitWaiter(id, timeout: timeout) }
    }
  }

  private func expireLineWaiter(_ id: UInt64, timeout: Duration) {
    let expired = state.withLock { state -> (MonitorState.LineWaiter, String)? in
      guard let waiter = state.lineWaiters.removeValue(forKey: id) else { return nil }
      return (waiter, state.transcript)
    }
    guard let (waiter, transcript) = expired else { return }
    let what = "\(waiter.what) on \(waiter.stream)"
    waiter.continuation.resume(
      throwing: HarnessError.timedOut(what, after: timeout, output: transcript))
  }

  private func expireExitWaiter(_ id: UInt64, timeout: Duration) {
    typealias Expired = (CheckedContinuation<Termination, any Error>, String, Bool)
    let expired = state.withLock { state -> Expired? in
      guard let waiter = state.exitWaiters.removeValue(forKey: id) else { return nil }
      return (waiter, state.transcript, state.termination != nil)
    }
    guard let (waiter, transcript, exited) = expired else { return }
    let diagnosis = exited ? "" : Self.diagnose(pid)
    killGroupUnlessReaped()
    let what =
      exited
      ? "end of output (the child exited, but something still holds its stdout or stderr)"
      : "the process to exit (its group was then sent SIGKILL)\n\(diagnosis)"
    waiter.resume(throwing: HarnessError.timedOut(what, after: timeout, output: transcript))
  }

  /// What a hung child was doing: its state and kernel wait channel, and every other process
  /// that holds its stdin pipe (a leaked write end keeps a reader from ever seeing the end).
  private static func diagnose(_ pid: Int32) -> String {
    func read(_ path: String) -> String {
      (try? String(contentsOfFile: path, encoding: .utf8)) ?? "?"
    }
    let stat = read("/proc/\(pid)/stat")
    let state = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].prefix(3) } ?? "?"
    var lines = ["state:\(state) wchan: \(read("/proc/\(pid)/wchan"))"]
    if let stdin = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0"),
      stdin.hasPrefix("pipe:")
    {
      let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      for other in processes.compactMap(Int32.init) where other != pid {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(other)/fd")) ?? []
        let holds = fds.contains { fd in
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(other)/fd/\(fd)"))
            == stdin
        }
        if holds {
          let command = read("/proc/\(other)/cmdline").replacingOccurrences(of: "\0", with: " ")
          lines.append("stdin \(stdin) also held by pid \(other): \(command)")
        }
      }
    }
    return lines.joined(separator: "\n")
  }

  // MARK: Reading the state

  /// A consistent copy of the state.
  var snapshot: MonitorState { state.withLock { $0 } }

  /// Sends `signal` to the child unless it was already reaped (so a reused pid is never hit).
  func send(signal: Int32) {
    state.withLock { state in
      guard state.termination == nil else {
        state.note("\(Termination.name(ofSignal: signal)) not sent: the process was reaped")
        return
      }
      _ = kill(pid, signal)
      state.note("\(Termination.name(ofSignal: signal)) sent to pid \(pid)")
    }
  }

  /// SIGKILL to the child's group while its leader is not yet reaped, so a group id that was
  /// freed and reused is never hit (the reaper reaps under the same lock).
  func killGroupUnlessReaped() {
    state.withLock { state in
      guard state.termination == nil else { return }
      _ = kill(-processGroup, SIGKILL)
      state.note("SIGKILL sent to group \(processGroup) (cleanup)")
    }
  }

  /// Sends `signal` to every process in the child's group, like a terminal's Ctrl-C.
  ///
  /// After the child was reaped, only a member still alive keeps the group id from being
  /// reused: use it then only for a group known to have one.
  func sendToGroup(signal: Int32) {
    _ = kill(-processGroup, signal)
    state.withLock {
      $0.note("\(Termination.name(ofSignal: signal)) sent to group \(processGroup)")
    }
  }

  // MARK: Stdin

  /// Writes all of `bytes` to the child's stdin pipe.
  ///
  /// - Throws: `HarnessError` when stdin is not a pipe, was closed, or the child closed it.
  func writeToStdin(_ bytes: [UInt8]) throws(HarnessError) {
    try stdinDescriptor.withLock { (descriptor) throws(HarnessError) -> Void in
      guard let descriptor else {
        throw .ioFailed("write to stdin (not an open pipe)", errno: EBADF)
      }
      var offset = 0
      while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes {
          write(descriptor, $0.baseAddress, $0.count)
        }
        if written < 0 {
          if errno == EINTR { continue }
          throw .ioFailed("write to stdin", errno: errno)
        }
        offset += written
      }
    }
  }

  /// Closes the child's stdin pipe, so that it reads end of file. Safe to call twice.
  func closeStdin() {
    let closed = stdinDescriptor.withLock { descriptor in
      defer { descriptor = nil }
      if let open = descriptor { close(open) }
      return descriptor != nil
    }
    if closed { state.withLock { $0.note("stdin closed") } }
  }

  // MARK: Threads

  private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = "e2e-\(name)"
    thread.start()
  }

  private func drain(_ descriptor: Int32, into stream: Stream) {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      let wakeups = state.withLock { state in
        state.update(stream) { $0.append(chunk[..<count], at: .now) }
        return state.collectWakeups()
      }
      wakeups.resume()
    }
    close(descriptor)
    let wakeups = state.withLock { state in
      state.update(stream) { $0.close() }
      return state.collectWakeups()
    }
    wakeups.resume()
  }

  private func reap() {
    // Wait without reaping first: while the child is a zombie its pid cannot be reused, so
    // `send(signal:)`, which checks `termination` under the same lock, never hits a stranger.
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    let wakeups = state.withLock { state in
      var status: Int32 = 0
      var reaped = waitpid(pid, &status, 0)
      while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, 0) }
      // ECHILD would mean that other code reaped our child (a `waitpid(-1)` somewhere): its
      // status is lost, so report 255 rather than leave every waiter hanging.
      let decoded = reaped == pid ? Termination(waitStatus: status) : nil
      state.termination = decoded ?? .exited(255)
      state.exitedAt = .now
      return state.collectWakeups()
    }
    wakeups.resume()
  }

  private func after(_ timeout: Duration, _ body: @escaping @Sendable () -> Void) {
    let (seconds, attoseconds) = timeout.components
    let nanoseconds = min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
    DispatchQueue.global().asyncAfter(
      deadline: .now() + .nanoseconds(Int(max(0, nanoseconds))), execute: body)
  }
}
