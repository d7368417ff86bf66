import Foundation
import Testing

/// loadctl under hostile conditions: a stdout nobody reads, failing or non-blocking writes, odd
/// signals and dispositions, FIFOs that never open, and too few file descriptors.
///
/// Each test waits for what it acts on (a full pipe, a blocked `open`, a printed line), never
/// for a fixed time, so it holds on a loaded machine.
@Suite(.processSlots) struct HostileTests {
  // MARK: Blocked stdout

  /// Waits until some thread of `pid` sleeps in a kernel function whose name contains one of
  /// `names` (from `/proc/PID/task/*/wchan`).
  static func waitUntilBlocked(_ pid: Int32, in names: [String]) async throws {
    try await Polling.until("a thread blocked in \(names)", every: .milliseconds(20)) {
      let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
      return tasks.contains { task in
        let path = "/proc/\(pid)/task/\(task)/wchan"
        let wchan = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return names.contains(where: { wchan.contains($0) })
      }
    }
  }

  static func tickerIntoBlockedPipe(json: Bool = true) async throws -> (LoadctlProcess, Int32) {
    let pipe = try Spawner.makePipe()
    let loadctl = try LoadctlProcess.start(
      executable: BinaryLocator.locate(),
      arguments: ["ticker", "--interval", "0"] + (json ? ["--json"] : []),
      stdout: .descriptor(pipe.write))
    close(pipe.write)
    try await waitUntilBlocked(loadctl.pid, in: ["pipe_write", "pipe_wait_writable"])
    return (loadctl, pipe.read)
  }

  /// The second SIGINT is sent once the first one's notice is on stderr: two signals sent back
  /// to back can merge into one while the process waits for a CPU.
  @Test func secondInterruptEndsARunBlockedOnStdout() async throws {
    let (loadctl, read) = try await Self.tickerIntoBlockedPipe(json: false)
    defer { close(read) }
    loadctl.send(signal: SIGINT)
    try await loadctl.waitForStderr(containing: "interrupted — cancelling")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
  }

  @Test func cleanupDeadlineEndsARunBlockedOnStdout() async throws {
    let (loadctl, read) = try await Self.tickerIntoBlockedPipe()
    defer { close(read) }
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM))
  }

  // MARK: Write errors

  static func outcome(_ arguments: [String], stdoutPath: String) async throws -> (
    Termination, String
  ) {
    let fd = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    #expect(fd >= 0)
    let loadctl = try LoadctlProcess.start(
      executable: BinaryLocator.locate(), arguments: arguments, stdout: .descriptor(fd))
    close(fd)
    let termination = try await loadctl.waitForExit()
    return (termination, loadctl.stderrText)
  }

  /// Answers are written as runs are: `--help`, `--version`, the manual and completions into a
  /// full disk were once a quiet 0.
  @Test(arguments: [
    ["profile"], ["profile", "--json"], ["--help"], ["--version"], ["help", "--man"],
    ["completions", "bash"],
  ])
  func aFullDiskIsAnIOError(arguments: [String]) async throws {
    let (termination, stderr) = try await Self.outcome(arguments, stdoutPath: "/dev/full")
    #expect(termination == .exited(74))
    #expect(stderr == "Error: cannot write to stdout: No space left on device\n")
  }

  @Test func nonBlockingStdoutReadSlowlyLosesNoLine() async throws {
    let count = 3000
    let script = """
      import os, subprocess, sys, time
      r, w = os.pipe()
      os.set_blocking(w, False)
      child = subprocess.Popen(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL)
      os.close(w)
      data = b""
      while True:
          chunk = os.read(r, 4096)
          if not chunk:
              break
          data += chunk
          time.sleep(0.002)
      child.wait()
      sys.stdout.write("%d\\n" % child.returncode)
      sys.stdout.write(data.decode())
      """
    let outcome = try await LoadctlProcess.run(
      executable: SchemaValidator.python,
      arguments: [
        "-c", script, try BinaryLocator.locate(), "ticker", "--interval", "0", "--count",
        "\(count)", "--json",
      ])
    #expect(outcome.stdout.first == "0")
    let events = try JSONLines.parse(Array(outcome.stdout.dropFirst()))
    #expect(events.filter { $0.event == "tick" }.count == count)
    #expect(events.last?.event == "end")
  }

  // MARK: arguments that are not UTF-8

  /// An argument that is not UTF-8 is refused (64), naming it: it was repaired to U+FFFD, so
  /// `--file` opened another name and `--record` made one.
  @Test func anArgumentThatIsNotUTF8IsRefused() async throws {
    let directory = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: [
        "-c", #"cd "$1" && "$0" counter + --record $'r\xfe.jsonl'; echo "status $?"; ls"#,
        try BinaryLocator.locate(), directory,
      ])
    #expect(outcome.stdout.first == "status 64", "\(outcome)")
    #expect(outcome.stdout.count == 1, "no file is made: \(outcome.stdout)")
    #expect(
      outcome.stderr.hasPrefix(
        "Error: argument 4 is not UTF-8 text; loadctl takes names and values as UTF-8\n"))
  }

  // MARK: time past 292 years

  /// Virtual time past what a run's events can carry (2^63 ns, about 292 years) ends the run
  /// with an error, without trapping, and prints the same recorded or not.
  @Test func timePastWhatEventsCarryNeitherTrapsNorDependsOnRecording() async throws {
    let retried = try await LoadctlProcess.run([
      "profile", "--fail", "x", "--retries", "9000", "--backoff", "1000000000s", "--latency", "0",
      "--clock", "virtual", "-q",
    ])
    #expect(retried.termination == .exited(65), "\(retried.stderr)")
    let scratch = try TemporaryFile(String(repeating: "+1000000000s +\n", count: 12))
    let recording = try TemporaryFile("")
    let plain = try await LoadctlProcess.run(
      ["counter", "--input", scratch.path, "--clock", "virtual", "--json"])
    let recorded = try await LoadctlProcess.run(
      [
        "counter", "--input", scratch.path, "--clock", "virtual", "--json", "--record",
        recording.path,
      ])
    #expect(plain.termination == .exited(65))
    #expect(recorded.termination == .exited(65))
    #expect(plain.stdout == recorded.stdout)
    #expect(plain.stderr.hasPrefix("Error: the run's next wait ends "))
  }

  // MARK: --trace

  @Test func aTraceThatCannotBeWrittenIsAnIOError() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--latency", "1ms", "--trace", "/dev/full"])
    #expect(outcome.termination == .exited(74))
    #expect(
      outcome.stderr == "Error: cannot write trace file '/dev/full': No space left on device\n")
  }

  @Test func aTraceIntoStdoutIsAUsageError() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("loadctl-hostile-\(getpid())-stdout.txt").path
    defer { unlink(path) }
    let (termination, stderr) = try await Self.outcome(
      ["profile", "--trace", "/dev/stdout"], stdoutPath: path)
    #expect(termination == .exited(64))
    #expect(stderr.hasPrefix("Error: '--trace' names the same file as stdout"))
  }

  // MARK: Signals

  @Test func quitDiesAtOnceWithoutACrashReport() async throws {
    let loadctl = try LoadctlProcess.start(["profile", "--json", "--latency", "600s"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["event": "start"]))
    loadctl.send(signal: SIGQUIT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGQUIT))
    #expect(loadctl.stderrText.isEmpty, "\(loadctl.stderrText.prefix(300))")
  }

  @Test func hangupEndsCleanlyAndWritesTheTrace() async throws {
    let trace = FileManager.default.temporaryDirectory
      .appendingPathComponent("loadctl-hostile-\(getpid())-hup.json").path
    defer { unlink(trace) }
    let loadctl = try LoadctlProcess.start(
      ["profile", "--json", "--latency", "600s", "--trace", trace])
    try await loadctl.waitForLine(where: JSONEvent.matching(["to.state": "loading"]))
    loadctl.send(signal: SIGHUP)
    #expect(try await loadctl.waitForExit() == .signaled(SIGHUP))
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(events.last?.event == "end")
    #expect(events.last?.string("reason") == "hangup")
    if SchemaValidator.isAvailable {
      // `hangup` is a documented reason: the output validates.
      let schema = SchemaValidator.schema(for: "profile")
      #expect(try await SchemaValidator.failures(of: loadctl.stdoutLines, schema: schema) == [])
    }
    let written = try Data(contentsOf: URL(fileURLWithPath: trace))
    #expect((try? JSONSerialization.jsonObject(with: written)) != nil, "the trace is JSON")
  }

  /// The signals in the `SigIgn` mask of `/proc/PID/status`: the dispositions a signal sent now
  /// meets (an ignored one is discarded when it is sent).
  static func ignoredSignals(inMask text: Substring) -> Set<Int32> {
    let mask = UInt64(text.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
    return Set((1...64).filter { mask & (1 << UInt64($0 - 1)) != 0 }.map { Int32($0) })
  }

  static func ignoredSignals(of pid: Int32) -> Set<Int32> {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
    return ignoredSignals(inMask: line?.dropFirst("SigIgn:".count) ?? "")
  }

  /// The run reads its input until the test ends it, so it is still running when the signals
  /// come, however fast it would tick. `--allow late`: on a busy machine a 20 ms tick can be
  /// late, and its warning on stderr is not a signal taken.
  @Test func signalsInheritedAsIgnoredStayIgnored() async throws {
    let loadctl = try LoadctlProcess.start(
      executable: "/bin/sh",
      arguments: [
        "-c",
        "trap '' HUP INT QUIT; exec \"$0\" timer --interval 20ms --allow late --input -",
        try BinaryLocator.locate(),
      ], stdin: .pipe)
    try await loadctl.waitForLine(containing: "timer")
    #expect(Self.ignoredSignals(of: loadctl.pid).isSuperset(of: [SIGHUP, SIGINT, SIGQUIT]))
    for signal in [SIGHUP, SIGINT, SIGQUIT] { loadctl.send(signal: signal) }
    try loadctl.write(toStdin: "stop\n")
    loadctl.closeStdin()
    #expect(try await loadctl.waitForExit() == .exited(0))
    #expect(loadctl.stderrText == "", "no signal was taken")
  }

  /// `cmd &` in a script: bash starts it with SIGINT ignored. The script waits for the first
  /// line before `kill`, since bash itself ignores SIGINT in the child only some time after `fork`.
  /// The timer runs until SIGTERM, so it is still running when SIGINT comes; SIGTERM must then be
  /// the only signal it took.
  @Test func aBackgroundJobInAScriptIgnoresInterrupt() async throws {
    let script = """
      f=$(mktemp -u); mkfifo "$f"
      "$0" timer --interval 10ms > "$f" & exec 3< "$f"; rm "$f"
      read -r line <&3; grep '^SigIgn:' /proc/$!/status; kill -INT $!; kill -TERM $!
      cat <&3 > /dev/null; wait $!; echo "status $?"
      """
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash", arguments: ["-c", script, try BinaryLocator.locate()])
    #expect(outcome.termination == .exited(0))
    let mask = try #require(outcome.stdout.first?.split(separator: ":").last)
    #expect(Self.ignoredSignals(inMask: mask).contains(SIGINT))
    #expect(outcome.stdout.last == "status 143", "died by SIGTERM, its first and only signal")
    #expect(outcome.stderr.contains("terminated — cancelling"))
    #expect(!outcome.stderr.contains("interrupted"))
  }

  // MARK: FIFOs

  static let fifoRuns: [[String]] = [
    ["counter", "--input", "FIFO"], ["ticker", "--from", "FIFO"],
    ["search", "--corpus", "FIFO", "q"], ["profile", "--file", "FIFO"],
    ["profile", "--latency", "1ms", "--trace", "FIFO"],
  ]

  @Test(arguments: fifoRuns)
  func aBlockedFIFOOpenEndsOnInterrupt(arguments: [String]) async throws {
    let fifo = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "loadctl-hostile-\(getpid())-\(arguments.joined(separator: "_")).fifo"
      ).path
    unlink(fifo)
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    let loadctl = try LoadctlProcess.start(arguments.map { $0 == "FIFO" ? fifo : $0 })
    try await Self.waitUntilBlocked(loadctl.pid, in: ["fifo_open", "wait_for_partner"])
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
  }

  // MARK: At a terminal

  @Test func ctrlZStopsWithTheTerminalRestoredAndContinueGoesOn() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "loading"], ["send", "\u{1A}"], ["stopped"], ["signal", "CONT"], ["wait_raw"],
        ["send", "q"],
      ], ["profile", "-i", "--latency", "600s", "--no-color"], environment: ["PTY_RUN_JOB": "1"])
    #expect(result.error == nil)
    #expect(result.termiosWhenStopped == true, "the terminal was restored before stopping")
    #expect(result.exit == 0)
    #expect(result.termiosRestored)
  }

  @Test func ctrlBackslashQuitsWithTheTerminalRestored() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [["wait", "loading"], ["send", "\u{1C}"]], ["profile", "-i", "--latency", "600s"])
    #expect(result.error == nil)
    #expect(result.signal == SIGQUIT)
    #expect(result.termiosRestored)
    #expect(!result.output.contains("crashed"))
  }

  @Test func theSpinnerFitsANarrowTerminalAndIsErasedBeforeTheNotice() async throws {
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "loading"], ["resize", "6"], ["wait", " loa\r"], ["send", "\u{03}"],
        ["wait", "interrupted"],
      ], ["profile", "-i", "--latency", "600s"])
    #expect(result.error == nil)
    #expect(result.signal == SIGINT)
    #expect(result.output.contains("\u{1B}[Kinterrupted — cancelling (Ctrl-C again to force)"))
  }

  // MARK: Resources

  @Test func tooFewDescriptorsIsAnOSError() async throws {
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh",
      arguments: ["-c", "ulimit -n 6; exec \"$0\" profile", try BinaryLocator.locate()])
    #expect(outcome.termination == .exited(71))
    #expect(outcome.stderr.hasPrefix("Error: too few file descriptors"))
  }

  /// A wait past what virtual time can reach (2^63 ns) ends the run with one `Error:` line and
  /// 65, where the run went on at the end of time for ever.
  @Test(arguments: [
    ["timer", "--interval", "1000000000s", "--ticks", "9223372036854775807"],
    ["profile", "--fail", "offline", "--retries", "1000000", "--backoff", "1000000000s"],
  ])
  func aWaitPastTheVirtualClocksRangeIsAnError(arguments: [String]) async throws {
    let outcome = try await LoadctlProcess.run(arguments + ["--clock", "virtual"])
    #expect(outcome.termination == .exited(65), "\(outcome.stderr)")
    #expect(outcome.stderr.hasPrefix("Error: the run's next wait ends "))
    #expect(outcome.stderr.contains("past the 2^63 ns (about 292 years) virtual time can reach"))
  }

  /// The near miss: a long run that stays within the range ends as usual.
  @Test func aLongVirtualRunWithinTheRangeEnds() async throws {
    let outcome = try await LoadctlProcess.run(
      ["timer", "--interval", "1000000000s", "--ticks", "9", "--clock", "virtual"])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
  }

  /// Too few process slots (`ulimit -u`, which counts threads) for the runtime's threads: one
  /// `Error:` line and 71 at once, for every flow and for a replay, where the runtime would
  /// retry making a worker for ever. As `nobody`, since root is not held to the limit; the binary
  /// is copied where `nobody` can run it.
  @Test(arguments: [
    ["counter", "+"], ["profile", "--clock", "virtual"], ["timer", "--ticks", "2"],
  ])
  func tooFewThreadsIsAnOSError(arguments: [String]) async throws {
    let outcome = try await Self.runAsNobody(slots: 4, arguments)
    #expect(outcome.termination == .exited(71), "\(outcome.stderr)")
    #expect(outcome.stderr.hasPrefix("Error: too few threads: loadctl needs "))
    #expect(outcome.stderr.contains("raise 'ulimit -u'"))
    #expect(outcome.stdout.isEmpty)
  }

  /// The near miss: the same user with a few dozen slots runs as usual.
  @Test func enoughThreadsRun() async throws {
    let outcome = try await Self.runAsNobody(slots: 64, ["counter", "+"])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    #expect(outcome.stdout.contains { $0.contains("count: 1") })
  }

  /// Runs a copy of the binary under test as `nobody` with `ulimit -u slots`, from a fresh
  /// directory that any user may read and search, removed afterwards.
  private static func runAsNobody(slots: Int, _ arguments: [String]) async throws
    -> LoadctlProcess.Outcome
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "loadctl-nobody-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o755])
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("loadctl").path
    try FileManager.default.copyItem(atPath: try BinaryLocator.locate(), toPath: copy)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
    return try await LoadctlProcess.run(
      executable: "/usr/bin/setpriv",
      arguments: [
        "--reuid", "65534", "--regid", "65534", "--clear-groups", "/bin/bash", "-c",
        "ulimit -u \(slots); exec \"$0\" \"$@\"", copy,
      ] + arguments)
  }

  /// Enough descriptors for the runtime but not for a command's pipes is the same system error,
  /// said before the flow starts, not a command that "failed" with status 1.
  @Test func tooFewDescriptorsForACommandIsAnOSError() async throws {
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh",
      arguments: [
        "-c", "ulimit -n 15; exec \"$0\" ticker --exec 'echo 1' --count 1",
        try BinaryLocator.locate(),
      ])
    #expect(outcome.termination == .exited(71))
    #expect(outcome.stderr.hasPrefix("Error: too few file descriptors"))
    #expect(outcome.stdout.isEmpty)
  }

  /// A line that never ends (`/dev/zero`) is reported as soon as it is too long, not at a
  /// newline that never comes; the run goes on until stopped.
  @Test func aLineThatNeverEndsIsReportedAtOnce() async throws {
    let loadctl = try LoadctlProcess.start(["counter", "--input", "/dev/zero"])
    try await loadctl.waitForStderr(
      containing: "Error: input line 1: line longer than 65536 bytes")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
  }

  /// The same for a `ticker --exec` command's line: reported at once, not when the command is
  /// torn down (it used to wait for the rest of the line, which never came).
  @Test func aCommandLineThatNeverEndsIsReportedAtOnce() async throws {
    let loadctl = try LoadctlProcess.start([
      "ticker", "--exec", "head -c 2000000 /dev/zero | tr '\\0' x; exec sleep 600",
    ])
    try await loadctl.waitForStderr(
      containing: "Error: input line 1: line longer than 65536 bytes")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
  }

  // MARK: Virtual time

  @Test func virtualTimeWithoutASeedIsReproducible() async throws {
    let arguments = ["ticker", "--clock", "virtual", "--count", "5", "--json"]
    let first = try await LoadctlProcess.run(arguments)
    let second = try await LoadctlProcess.run(arguments)
    #expect(first.termination == .exited(0))
    #expect(first.stdout.dropFirst() == second.stdout.dropFirst())
    let start = try JSONLines.parse(Array(first.stdout.prefix(1))).first
    #expect(start?.value(at: "options.seed") as? Int == 0)
  }
}
