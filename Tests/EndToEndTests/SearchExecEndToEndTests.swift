import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `loadctl search --exec` with real commands: the query is data, a stale command's process
/// group is gone before the next result shows, failures say how the command ended, and Ctrl-C
/// leaves no process behind. Commands write their pids to a file so the tests can look them up
/// in `/proc`.
@Suite(.processSlots) struct SearchExecEndToEndTests {
  /// A `--timeout` no command reaches before the harness's failsafe: the default 10 s counts the
  /// shell's own start, which a busy machine can stretch past it.
  static let noTimeout = ["--timeout", "600s"]

  @Test(arguments: [
    "'; touch MARKER #", "$(touch MARKER)", "`touch MARKER`", "\" ; touch MARKER ; \"",
    "x' && touch MARKER && echo '", "*", "a  b\\n",
  ])
  func theQueryIsSearchedForNeverRun(pattern: String) async throws {
    let scratch = try Scratch()
    let query = pattern.replacingOccurrences(of: "MARKER", with: scratch.path("marker"))
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--debounce", "0", "--exec", #"printf '%s\n' {query}"#]
        + Self.noTimeout + ["--", query])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    let end = try #require(try await SearchEvents.checked(outcome.stdout).end)
    #expect(end.strings(at: "state.items") == [query], "printed as one word, literally")
    #expect(!FileManager.default.fileExists(atPath: scratch.path("marker")), "never executed")
  }

  @Test(arguments: [false, true])
  func aStaleCommandIsTornDownBeforeTheNextResultShows(ignoresSIGTERM: Bool) async throws {
    let scratch = try Scratch()
    defer { withExtendedLifetime(scratch) {} }
    let pids = scratch.path("pids")
    // `slow` records its pid (renamed into place, never read half written) and waits forever
    // (optionally deaf to SIGTERM); anything else answers at once.
    let record = "echo $$ > \(pids).tmp && mv \(pids).tmp \(pids)"
    let slow =
      ignoresSIGTERM
      ? "trap '' TERM; \(record); while :; do sleep 1; done"
      : "\(record); exec sleep 100"
    let template = "case {query} in slow) \(slow);; *) printf '%s\\n' {query};; esac"
    let loadctl = try LoadctlProcess.start(
      [
        // A timeout no slow run reaches: the slow command must end by cancellation only.
        "search", "--json", "--input", "-", "--debounce", "0", "--kill-after", "300ms",
        "--timeout", "600s", "--exec", template,
      ], stdin: .pipe)
    try loadctl.write(toStdin: "slow\n")
    let pid = try #require(try await waitForLines(in: pids, count: 1).first)
    let identity = try #require(
      ProcessIdentity(pid: pid), "the slow command is running\n\(loadctl.transcript)")

    try loadctl.write(toStdin: "fast\n")
    try await loadctl.waitForLine(
      where: JSONEvent.matching(["event": "transition", "to.state": "results", "to.query": "fast"]))
    #expect(!identity.isPresent, "the stale command was reaped before the next result")

    loadctl.closeStdin()
    #expect(try await loadctl.waitForExit() == .exited(0))
    let events = try await SearchEvents.checked(loadctl.stdoutLines)
    #expect(
      events.requests == ["started slow", "cancelled slow", "started fast", "finished fast"])
    #expect(events.end?.strings(at: "state.items") == ["fast"])
    if ignoresSIGTERM {
      // It took SIGKILL, which comes only after the grace.
      let typedFast = try #require(
        events.all(action: "query_changed").first { $0.string("query") == "fast" })
      let cancelled = try #require(events.first(event: "request_cancelled"))
      let grace = (cancelled.elapsedMilliseconds ?? 0) - (typedFast.elapsedMilliseconds ?? 0)
      #expect(grace >= 300, "SIGKILL only after --kill-after")
    }
  }

  /// A template, extra options, and the failure message the request ends with.
  static let failures: [(String, [String], String)] = [
    (
      "echo {query}: no such index >&2; exit 3", noTimeout,
      "command failed (exit status 3): swift: no such index"
    ),
    (": {query}; kill -USR1 $$", noTimeout, "command failed (killed by SIGUSR1)"),
    (": {query}; exec sleep 100", ["--timeout", "200ms"], "command timed out after 200ms"),
  ]

  @Test(arguments: failures)
  func aFailingCommandFailsTheRequestWithTheReason(
    template: String, options: [String], message: String
  ) async throws {
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--debounce", "0", "--exec", template] + options + ["swift"])
    #expect(outcome.termination == .exited(1))
    let events = try await SearchEvents.checked(outcome.stdout)
    let end = try #require(events.end)
    #expect(end.string("reason") == "failed")
    #expect(end.string(at: "state.state") == "failed")
    #expect(end.string(at: "state.message") == message)
    #expect(events.requests == ["started swift", "finished swift"])
    #expect(events.first(event: "request_finished")?["ok"] as? Bool == false)
  }

  @Test func sigintWithACommandRunningLeavesNoZombieAndNoOrphan() async throws {
    let scratch = try Scratch()
    defer { withExtendedLifetime(scratch) {} }
    let pids = scratch.path("pids")
    let loadctl = try LoadctlProcess.start([
      // A timeout no slow run reaches: the command must end by the signal only.
      "search", "--json", "--debounce", "0", "--timeout", "600s", "--exec",
      ": {query}; sleep 100 & printf '%s\\n' $! $$ > \(pids).tmp && mv \(pids).tmp \(pids); wait",
      "swift",
    ])
    let recorded = try await waitForLines(in: pids, count: 2)
    let identities = recorded.compactMap(ProcessIdentity.init(pid:))
    try #require(
      identities.count == 2, "the shell and its sleep are running\n\(loadctl.transcript)")
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
    // The shell was loadctl's child: reaped before it died. The sleep got SIGKILL with its
    // group, but dying takes it a turn on a CPU, and init reaps the orphan after that: it must
    // be gone within the failsafe, which a sleep the teardown missed (100 s) never is.
    #expect(!identities[1].isPresent, "the shell was reaped (no zombie)")
    for identity in identities { try await identity.waitUntilGone() }

    let events = try await SearchEvents.checked(loadctl.stdoutLines)
    #expect(events.requests == ["started swift", "cancelled swift"])
    #expect(events.end?.string("reason") == "interrupted")
    #expect(loadctl.leftoverProcesses() == [])
  }

  @Test(arguments: [
    (["--exec", "grep -- '{query}' f", "q"], "Error: {query} in '--exec' must stand outside"),
    (["--exec", "grep -- {query} f", "--clock", "virtual", "q"], "Error: '--exec' cannot be used"),
    (["--exec", "ls", "q"], "Error: '--exec' needs {query}"),
  ])
  func badTemplatesAreUsageErrors(arguments: [String], prefix: String) async throws {
    let outcome = try await LoadctlProcess.run(["search"] + arguments)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout.isEmpty)
    #expect(outcome.stderr.hasPrefix(prefix), "\(outcome.stderr)")
  }
}

/// A temporary directory, removed with everything in it when the value goes away.
private final class Scratch: Sendable {
  let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "e2e-search-exec-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  func path(_ name: String) -> String { directory + "/" + name }

  deinit { try? FileManager.default.removeItem(atPath: directory) }
}

/// Waits until the file at `path` holds `count` complete lines of pids, and returns them.
/// - Throws: `HarnessError` after the harness's failsafe timeout.
private func waitForLines(in path: String, count: Int) async throws -> [Int32] {
  try await Polling.until("\(count) pids in \(path)") {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    return lines.count >= count ? lines.compactMap { Int32($0) } : nil
  }
}

/// One process, told apart from a later one with the same pid by its start time.
private struct ProcessIdentity: Sendable {
  let pid: Int32
  let startTime: Substring

  /// The process now using `pid`, or `nil` when there is none.
  init?(pid: Int32) {
    guard let (_, startTime) = Self.stat(pid) else { return nil }
    self.pid = pid
    self.startTime = startTime
  }

  /// Whether this process still has an entry in `/proc`, zombie or not.
  var isPresent: Bool { Self.stat(pid)?.startTime == startTime }

  /// Waits until the entry is gone (reaped); the harness's timeout is the failsafe.
  func waitUntilGone() async throws {
    try await Polling.until("pid \(pid) to be reaped") { !isPresent }
  }

  /// The state letter and start time from `/proc/PID/stat`.
  private static func stat(_ pid: Int32) -> (state: Substring, startTime: Substring)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after "pid (comm)": state (3), ppid (4), …, starttime (22).
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 19 else { return nil }
    return (fields[0], fields[19])
  }
}
