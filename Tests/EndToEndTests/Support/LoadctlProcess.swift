import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The built `loadctl` (or any executable) running as a real process in an end-to-end test.
///
/// Tests drive it the way a user or a script would (arguments, environment, stdin, signals)
/// and observe it only through its output and its exit. Every wait ends when the awaited
/// output or exit arrives; the timeout is a failsafe that fails the test with the output so
/// far, never a guess at how long loadctl takes. A process dropped while still running gets
/// SIGKILL, with its whole group.
///
/// ```swift
/// let loadctl = try LoadctlProcess.start(["profile", "--json"], unsetting: ["COLUMNS"])
/// try await loadctl.waitForLine(where: JSONEvent.matching(["to.state": "loading"]))
/// loadctl.send(signal: SIGINT)
/// #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
/// #expect(loadctl.leftoverProcesses() == [])
/// ```
final class LoadctlProcess: Sendable {
  /// What the child reads as standard input.
  enum Stdin: Sendable {
    /// `/dev/null`: immediate end of file. The default, since CI has no terminal.
    case null
    /// A pipe the test writes to with `write(toStdin:)` and ends with `closeStdin()`.
    case pipe
    /// A pipe that is fed this text and then closed.
    case text(String)
    /// A file, opened for reading.
    case file(String)
    /// A descriptor of the test process, shared with the child (pipelines).
    case descriptor(Int32)
  }

  /// Where the child's standard output goes.
  enum Stdout: Sendable {
    /// A pipe read into `stdoutLines`. The default.
    case capture
    /// A descriptor of the test process, shared with the child (pipelines).
    case descriptor(Int32)
  }

  /// What `run` returns: how the process ended and everything it wrote.
  typealias Outcome = (termination: Termination, stdout: [String], stderr: String)

  /// 30 s, times `LOADCTL_E2E_TIMEOUT_SCALE` (for slow runs such as a sanitizer build).
  ///
  /// A guard against a hang, not a measurement: a waiting test returns as soon as the line or
  /// the exit arrives. On this 2-core machine two suites at once (load average ~30, dozens of
  /// Python schema validators starting together) kept processes from finishing within 10 s.
  static let defaultTimeout: Duration = {
    let variable = ProcessInfo.processInfo.environment["LOADCTL_E2E_TIMEOUT_SCALE"]
    let scale = variable.flatMap(Double.init) ?? 1
    return .seconds(30) * max(scale, 0.1)
  }()

  private let monitor: ProcessMonitor
  /// Where this run is recorded (see ``recordingArguments(for:)``), named in ``transcript``.
  let recording: String?

  private init(monitor: ProcessMonitor, recording: String? = nil) {
    self.monitor = monitor
    self.recording = recording
  }

  deinit {
    monitor.closeStdin()
    monitor.killGroupUnlessReaped()
  }

  // MARK: Starting

  /// Starts the built `loadctl` (see `BinaryLocator`) with `arguments`.
  ///
  /// - Parameters:
  ///   - environment: Variables added to (or replacing those of) the test's environment.
  ///   - unsetting: Variables removed from it, such as `COLUMNS`.
  static func start(
    _ arguments: [String], stdin: Stdin = .null, environment: [String: String] = [:],
    unsetting: [String] = []
  ) throws -> LoadctlProcess {
    let recording = recordingPath(for: arguments)
    return try start(
      executable: BinaryLocator.locate(),
      arguments: arguments + (recording.map { ["--record", $0] } ?? []), stdin: stdin,
      environment: environment, unsetting: unsetting, recording: recording)
  }

  /// Where a run with real work (`--exec`, `--url`) is recorded, so that a failing test's
  /// message says where the interleaving it met can be replayed (`loadctl replay PATH`); `nil`
  /// for other runs, runs that record themselves, and with `LOADCTL_E2E_RECORD=0`.
  private static func recordingPath(for arguments: [String]) -> String? {
    let flows: Set = ["profile", "search", "counter", "timer", "ticker"]
    guard ProcessInfo.processInfo.environment["LOADCTL_E2E_RECORD"] != "0",
      let command = arguments.first, flows.contains(command),
      arguments.contains(where: { $0 == "--exec" || $0 == "--url" }),
      !arguments.contains("--record"), !arguments.contains("--")
    else { return nil }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "loadctl-e2e-recordings")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("\(command)-\(UUID().uuidString).jsonl").path
  }

  /// Starts any executable, given by path or looked up in `PATH`, in a new process group.
  ///
  /// - Parameter processGroup: 0 for a new group led by the child, or a group to join.
  static func start(
    executable: String, arguments: [String], stdin: Stdin = .null, stdout: Stdout = .capture,
    environment: [String: String] = [:], unsetting: [String] = [], processGroup: Int32 = 0,
    recording: String? = nil
  ) throws -> LoadctlProcess {
    var parentEnds: [Int32] = []
    var childEnds: [Int32] = []
    defer { childEnds.forEach { close($0) } }
    do {
      let (stdinSource, stdinWriter) = try wire(
        stdin, parentEnds: &parentEnds, childEnds: &childEnds)
      let stdoutSource: Spawner.Source
      let stdoutReader: Int32?
      switch stdout {
      case .descriptor(let descriptor):
        (stdoutSource, stdoutReader) = (.descriptor(descriptor), nil)
      case .capture:
        let pipe = try Spawner.makePipe()
        parentEnds.append(pipe.read)
        childEnds.append(pipe.write)
        (stdoutSource, stdoutReader) = (.descriptor(pipe.write), pipe.read)
      }
      let stderrPipe = try Spawner.makePipe()
      parentEnds.append(stderrPipe.read)
      childEnds.append(stderrPipe.write)

      let request = Spawner.Request(
        executable: executable, arguments: arguments,
        environment: Spawner.environment(
          adding: environment, removing: unsetting, base: ProcessInfo.processInfo.environment),
        stdin: stdinSource, stdout: stdoutSource, stderr: .descriptor(stderrPipe.write),
        processGroup: processGroup)
      let pid = try Spawner.spawn(request)
      let label = ([executable] + arguments).joined(separator: " ")
      let monitor = ProcessMonitor(
        pid: pid, processGroup: processGroup == 0 ? pid : processGroup, label: label,
        stdout: stdoutReader, stderr: stderrPipe.read, stdin: stdinWriter)
      if case .text(let text) = stdin { feed(text, to: monitor) }
      return LoadctlProcess(monitor: monitor, recording: recording)
    } catch {
      parentEnds.forEach { close($0) }
      throw error
    }
  }

  /// The child's side of `stdin`, and the parent's write end when it is a pipe.
  private static func wire(
    _ stdin: Stdin, parentEnds: inout [Int32], childEnds: inout [Int32]
  ) throws(HarnessError) -> (Spawner.Source, Int32?) {
    switch stdin {
    case .null: return (.file("/dev/null", forWriting: false), nil)
    case .file(let path): return (.file(path, forWriting: false), nil)
    case .descriptor(let descriptor): return (.descriptor(descriptor), nil)
    case .pipe, .text:
      let pipe = try Spawner.makePipe()
      parentEnds.append(pipe.write)
      childEnds.append(pipe.read)
      return (.descriptor(pipe.read), pipe.write)
    }
  }

  /// Writes on a thread of its own, so that a child that reads slowly cannot block the test.
  private static func feed(_ text: String, to monitor: ProcessMonitor) {
    let thread = Thread {
      // A child that exits without reading makes the write fail with EPIPE; that is its right.
      try? monitor.writeToStdin(Array(text.utf8))
      monitor.closeStdin()
    }
    thread.start()
  }

  /// Starts `loadctl` with `arguments`, waits for it to exit, and returns all it wrote.
  static func run(
    _ arguments: [String], stdin: Stdin = .null, environment: [String: String] = [:],
    unsetting: [String] = [], timeout: Duration = defaultTimeout
  ) async throws -> Outcome {
    let process = try start(arguments, stdin: stdin, environment: environment, unsetting: unsetting)
    return try await process.outcome(timeout: timeout)
  }

  /// Starts any executable, waits for it to exit, and returns all it wrote.
  static func run(
    executable: String, arguments: [String], stdin: Stdin = .null,
    environment: [String: String] = [:], unsetting: [String] = [],
    timeout: Duration = defaultTimeout
  ) async throws -> Outcome {
    let process = try start(
      executable: executable, arguments: arguments, stdin: stdin, environment: environment,
      unsetting: unsetting)
    return try await process.outcome(timeout: timeout)
  }

  private func outcome(timeout: Duration) async throws -> Outcome {
    let termination = try await waitForExit(timeout: timeout)
    return (termination, stdoutLines, stderrText)
  }

  // MARK: Waiting

  /// Waits for the next stdout line that satisfies `predicate` and returns it.
  ///
  /// Lines are matched in order: the search starts after the line the previous wait returned,
  /// and includes lines that arrived before this call. Lines skipped over are not revisited.
  /// - Throws: `HarnessError` if stdout ends first or after `timeout` (a failsafe).
  @discardableResult
  func waitForLine(
    where predicate: @escaping @Sendable (String) -> Bool, timeout: Duration = defaultTimeout
  ) async throws -> String {
    try await monitor.waitForLine(
      on: .stdout, "a matching line", timeout: timeout, where: predicate)
  }

  /// Waits for the next stdout line that contains `text`.
  @discardableResult
  func waitForLine(containing text: String, timeout: Duration = defaultTimeout) async throws
    -> String
  {
    try await monitor.waitForLine(
      on: .stdout, "a line containing \"\(text)\"", timeout: timeout
    ) { $0.contains(text) }
  }

  /// Waits for the next stderr line that satisfies `predicate`.
  @discardableResult
  func waitForStderr(
    where predicate: @escaping @Sendable (String) -> Bool, timeout: Duration = defaultTimeout
  ) async throws -> String {
    try await monitor.waitForLine(
      on: .stderr, "a matching line", timeout: timeout, where: predicate)
  }

  /// Waits for the next stderr line that contains `text`.
  @discardableResult
  func waitForStderr(containing text: String, timeout: Duration = defaultTimeout) async throws
    -> String
  {
    try await monitor.waitForLine(
      on: .stderr, "a line containing \"\(text)\"", timeout: timeout
    ) { $0.contains(text) }
  }

  /// Waits until the process has exited and its stdout and stderr are closed.
  ///
  /// - Throws: `HarnessError` after `timeout`; the process group then gets SIGKILL.
  @discardableResult
  func waitForExit(timeout: Duration = defaultTimeout) async throws -> Termination {
    try await monitor.waitForExit(timeout: timeout)
  }

  // MARK: Acting

  /// Sends `signal` to the process (not its group), as `kill` would.
  func send(signal: Int32) { monitor.send(signal: signal) }

  /// Sends `signal` to the process's whole group, as a terminal's Ctrl-C would.
  func sendToGroup(signal: Int32) { monitor.sendToGroup(signal: signal) }

  /// Writes `text` to stdin, which must be `.pipe`.
  func write(toStdin text: String) throws { try monitor.writeToStdin(Array(text.utf8)) }

  /// Closes stdin, so that the process reads end of file.
  func closeStdin() { monitor.closeStdin() }

  // MARK: Observing

  /// The child's pid.
  var pid: Int32 { monitor.pid }
  /// Complete stdout lines so far (all of them once `waitForExit` returned).
  var stdoutLines: [String] { monitor.snapshot.stdout.lines }
  /// Stdout as text.
  var stdoutText: String { monitor.snapshot.stdout.text }
  /// Stdout exactly as written.
  var stdoutBytes: [UInt8] { monitor.snapshot.stdout.bytes }
  /// Stderr lines so far.
  var stderrLines: [String] { monitor.snapshot.stderr.lines }
  /// Stderr as text.
  var stderrText: String { monitor.snapshot.stderr.text }
  /// How the process ended, once it has.
  var termination: Termination? { monitor.snapshot.termination }
  /// When the process was started.
  var startedAt: ContinuousClock.Instant { monitor.startedAt }
  /// When the process was reaped, once it has been.
  var exitedAt: ContinuousClock.Instant? { monitor.snapshot.exitedAt }
  /// The command line, status and output so far, for messages.
  var transcript: String {
    let replay = recording.map { "recording: \($0) (loadctl replay \($0))\n" } ?? ""
    return replay + monitor.snapshot.transcript
  }

  /// Live processes still in this process's group: after `waitForExit`, anything here was
  /// left behind by loadctl and should be empty.
  func leftoverProcesses() -> [Int32] {
    ProcessGroup.liveMembers(of: monitor.processGroup)
  }
}
