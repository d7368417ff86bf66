#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command to run as a child process that the calling task owns, start to teardown.
///
/// The command runs in a process group of its own (led by its lifeline watcher), stdin from
/// `/dev/null` unless ``standardInput`` says otherwise, with every signal at its default and
/// none blocked. A thread of its own reads stdout (bounded: a child that out-writes its consumer
/// is blocked by the pipe), keeps the last lines of stderr and reaps the process, so no
/// cooperative thread ever blocks. When the task is cancelled or the consumer is done, the group
/// gets SIGTERM, then SIGKILL after ``killAfter``. Once the command has ended, in every path, the
/// group gets SIGKILL so that what it left behind (`sleep 100 &`) goes too. A lifeline watcher in
/// the group kills it if this process dies in any way, `kill -9` included; see
/// ``Subprocesses/terminateAll(orphanWait:)`` for the app's own exit.
///
/// ```swift
/// let output = try await Subprocess.shell("uname -r").output()
/// guard output.termination == .exited(0) else { throw Failure(output.stderrTail.last) }
/// let feed = try await Subprocess.shell("tail -f log").withLines { lines in
///   while let line = await lines.nextString() { print(line) }
/// }
/// ```
public struct Subprocess: Sendable {
  /// The program to run: an absolute path (no `PATH` search).
  public var executable: String
  /// The arguments after `argv[0]` (which is ``executable``).
  public var arguments: [String]
  /// The environment; `nil` inherits this process's.
  public var environment: [String: String]?
  /// A descriptor the child reads as stdin (this process keeps it); `nil` is `/dev/null`.
  public var standardInput: Int32?
  /// How long teardown waits after SIGTERM before it sends SIGKILL.
  public var killAfter: Duration
  /// How many of the last stderr lines are kept (each capped at 4 KiB).
  public var stderrTailLines: Int
  /// How notices name the command; `nil` names it by ``label``'s default.
  public var name: String?

  /// Whether ``LineIterator/nextLine()`` gives stderr's lines too, beside stdout's (they are
  /// kept for ``Output/stderrTail`` either way). Stderr is still read whatever the consumer
  /// does: what it has not taken beyond a bound is dropped and counted
  /// (``LineIterator/droppedStderrBytes``), so a flood on stderr neither blocks the command nor
  /// grows memory.
  public var streamsStderr = false
  /// How notices (``SubprocessNotice``) name the command: ``name``, else the command line of
  /// `/bin/sh -c CMD`, else the executable's file name (never its arguments, which may hold
  /// what is not for display).
  public var label: String {
    if let name { return name }
    if executable == "/bin/sh", arguments.count >= 2, arguments[0] == "-c" { return arguments[1] }
    return executable.split(separator: "/").last.map(String.init) ?? executable
  }

  /// A command to run; nothing starts until ``output(limit:beyond:stderr:)`` or ``withLines(isolation:_:)``.
  public init(
    executable: String, arguments: [String] = [], environment: [String: String]? = nil,
    standardInput: Int32? = nil, killAfter: Duration = .seconds(2), stderrTailLines: Int = 20
  ) {
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
    self.standardInput = standardInput
    self.killAfter = killAfter
    self.stderrTailLines = stderrTailLines
  }

  /// `/bin/sh -c command`.
  public static func shell(_ command: String) -> Subprocess {
    Subprocess(executable: "/bin/sh", arguments: ["-c", command])
  }

  /// What a command printed and how it ended.
  public struct Output: Sendable {
    /// Stdout, at most `limit` bytes.
    public var stdout: [UInt8]
    /// Whether stdout went past `limit` (the command was then torn down, or the rest discarded:
    /// see ``Overflow``).
    public var truncated: Bool
    /// How the command ended.
    public var termination: Termination
    /// The last lines of stderr, oldest first, without their newlines.
    public var stderrTail: [String]
    /// With ``Subprocess/streamsStderr``, the stderr bytes never handed to `stderr` because
    /// the consumer had not taken the ones before (they are still in ``stderrTail``'s lines).
    public var droppedStderrBytes = 0
  }

  /// What ``output(limit:beyond:stderr:)`` does with stdout past its limit.
  public enum Overflow: Sendable {
    /// Tears the command down, like a cancelled one: a flood never runs on unread.
    case stop
    /// Reads and drops the rest: the command runs to its own end (its stdout is not wanted).
    case discard
  }

  /// Runs the command to its end and collects its stdout, up to `limit` bytes.
  ///
  /// It returns once the command has exited and been reaped, even if it closed stdout long
  /// before (`exec >&-; sleep 1`), or before if something else still holds stdout open: its group
  /// is killed when it ends. Past `limit` bytes, `truncated` is set and `beyond` says what
  /// happens: the command is torn down (``Overflow/stop``), or the rest is read and dropped
  /// (``Overflow/discard``); memory never grows past `limit` either way. With
  /// ``streamsStderr``, `stderr` is given stderr's lines as they come (see
  /// ``LineIterator/nextLines()``), the last one without a newline too.
  ///
  /// - Throws: ``SubprocessError/spawnFailed(executable:errno:)`` when it cannot start;
  ///   ``SubprocessError/cancelled`` when the task is cancelled, after the group was torn down
  ///   (this also holds if the command had just ended on its own).
  public func output(
    limit: Int = 1 << 20, beyond: Overflow = .stop, stderr: ([String]) -> Void = { _ in }
  ) async throws(SubprocessError) -> Output {
    if Task.isCancelled { throw .cancelled }
    let child = try ChildProcess.start(self)
    let output = await withTaskCancellationHandler {
      var stdout: [UInt8] = []
      var truncated = false
      var errors = LineSplitter()
      defer {
        var last: [String] = []
        errors.appendStrings(to: &last, ended: true)
        if !last.isEmpty { stderr(last) }
      }
      while let next = await child.nextChunk() {
        await Task.yield()  // see LineIterator: fair to the caller's other tasks
        guard next.pipe == .stdout else {
          errors.append(next.bytes)
          var lines: [String] = []
          errors.appendStrings(to: &lines, ended: false)
          if !lines.isEmpty { stderr(lines) }
          continue
        }
        let chunk = next.bytes
        let room = max(limit - stdout.count, 0)
        stdout += chunk.prefix(room)
        if chunk.count > room {
          truncated = true
          if beyond == .stop {
            child.stop()
            break
          }
        }
      }
      let ending = await child.finished()
      return Output(
        stdout: stdout, truncated: truncated, termination: ending.termination,
        stderrTail: ending.stderrTail, droppedStderrBytes: child.droppedStderr)
    } onCancel: {
      child.stop()
    }
    if Task.isCancelled { throw .cancelled }
    return output
  }

  /// Runs the command and hands its stdout lines to `body` as they arrive.
  ///
  /// When `body` returns or throws, the group is torn down (SIGTERM, ``killAfter``, SIGKILL)
  /// unless the command has already ended, and reaped; then this returns. A command that is
  /// still running at that moment (even one that closed its stdout) is reported as killed.
  /// Cancellation ends the iteration (`next()` returns `nil`); teardown follows when `body`
  /// returns. Lines are not kept when `body` stops reading: the pipe then blocks the command.
  ///
  /// - Returns: What `body` returned, how the command ended, and the last lines of its stderr.
  /// - Throws: ``SubprocessError/spawnFailed(executable:errno:)``, what `body` threw, or
  ///   ``SubprocessError/cancelled`` when the task was cancelled (after the teardown).
  public func withLines<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (inout LineIterator) async throws -> R
  ) async throws -> (result: R, termination: Termination, stderrTail: [String]) {
    if Task.isCancelled { throw SubprocessError.cancelled }
    let child = try ChildProcess.start(self)
    var lines = LineIterator(child: child)
    let outcome: Result<R, any Error>
    do {
      outcome = .success(
        try await withTaskCancellationHandler {
          try await body(&lines)
        } onCancel: {
          child.stop()
        })
    } catch {
      outcome = .failure(error)
    }
    child.stop()
    let ending = await child.finished()
    let result = try outcome.get()
    if Task.isCancelled { throw SubprocessError.cancelled }
    return (result, ending.termination, ending.stderrTail)
  }
}
