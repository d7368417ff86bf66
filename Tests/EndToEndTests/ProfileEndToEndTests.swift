import Foundation
import Testing

/// `loadctl profile` as users run it: a real process, real pipes, real signals.
@Suite(.processSlots) struct ProfileEndToEndTests {
  private static let schema = SchemaValidator.schema(for: "profile")
  /// A `--timeout` no request reaches before the harness's failsafe: the default 10 s counts
  /// curl's own start, which a busy machine can stretch past it.
  private static let noTimeout = "600s"

  /// Options that contradict each other, or say nothing, are refused: `-i` with `--no-input`
  /// (one asks for keys, the other for none) and an empty `--fail` message (it printed
  /// `failed()`).
  @Test(arguments: [
    (["-i", "--no-input"], "Error: '-i' and '--no-input' cannot be used together"),
    (["--fail", ""], "Error: '--fail' needs a message"),
    (["--fail", "  "], "Error: '--fail' needs a message"),
  ])
  func contradictoryOrEmptyOptionsAreRefused(options: [String], error: String) async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--clock", "virtual"] + options)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stderr.hasPrefix(error), "\(outcome.stderr)")
  }

  /// `--timeout` and `--kill-after` bound a command or curl: without `--exec` or `--url` they
  /// are refused, as in `search` (they were taken and did nothing).
  @Test(arguments: [
    ["--timeout", "5s"], ["--kill-after", "1s"], ["--timeout", "5s", "--fail", "x"],
  ])
  func timeoutsWithoutARealLoadAreRefused(options: [String]) async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--clock", "virtual"] + options)
    #expect(outcome.termination == .exited(64))
    #expect(
      outcome.stderr.hasPrefix(
        "Error: '\(options[0])' only applies to '--url' and '--exec'"), "\(outcome.stderr)")
  }

  @Test func demoLoadPrintsTransitionsAsText() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--latency", "50ms"], unsetting: ["COLUMNS"])
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stdout.count == 3)
    #expect(outcome.stdout.first?.hasSuffix("profile  idle → loading") == true)
    #expect(outcome.stdout.dropFirst().first?.hasSuffix("loading → loaded(name: Taylor)") == true)
    #expect(!outcome.stdout.joined().contains("\u{1B}["), "piped output must have no escape codes")
    #expect(outcome.stderr.isEmpty)
  }

  @Test func demoLoadAsJSONLines() async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--json", "--latency", "50ms"])
    #expect(outcome.termination == .exited(0))
    let events = try JSONLines.parse(outcome.stdout)
    #expect(JSONLines.envelopeProblems(events, command: "profile") == [])
    let transitions = events.filter { $0.event == "transition" }
    #expect(transitions.map { $0.value(at: "to.state") as? String } == ["loading", "loaded"])
    #expect(transitions.last?.value(at: "to.profile.name") as? String == "Taylor")
    #expect(events.last?.string("reason") == "completed")
    #expect(events.last?.integer("exit_code") == 0)
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
  }

  @Test func failureWithRetriesEndsFailedWithStatusOne() async throws {
    let outcome = try await LoadctlProcess.run([
      "profile", "--json", "--latency", "10ms", "--fail", "offline", "--retries", "2",
      "--backoff", "10ms",
    ])
    #expect(outcome.termination == .exited(1))
    let events = try JSONLines.parse(outcome.stdout)
    let states = events.filter { $0.event == "transition" }.compactMap {
      $0.value(at: "to.state") as? String
    }
    #expect(states == ["loading", "failed", "loading", "failed", "loading", "failed"])
    #expect(events.last?.string("reason") == "failed")
    #expect(events.last?.value(at: "state.message") as? String == "offline")
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
  }

  @Test func interruptWhileLoadingReturnsToIdleAndDiesBySIGINT() async throws {
    let loadctl = try LoadctlProcess.start(["profile", "--json", "--latency", "600s"])
    try await loadctl.waitForLine(where: JSONEvent.matching(["to.state": "loading"]))
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
    let events = try JSONLines.parse(loadctl.stdoutLines)
    #expect(JSONLines.envelopeProblems(events, command: "profile") == [])
    let last = events.filter { $0.event == "transition" }.last
    #expect(last?.value(at: "from.state") as? String == "loading")
    #expect(last?.value(at: "to.state") as? String == "idle")
    #expect(events.last?.string("reason") == "interrupted")
    #expect(events.last?.integer("exit_code") == 130)
    #expect(loadctl.stderrText.isEmpty)
    #expect(loadctl.leftoverProcesses() == [])
  }

  @Test func terminateInTextModeSaysSoOnStderr() async throws {
    let loadctl = try LoadctlProcess.start(["profile", "--latency", "600s"])
    try await loadctl.waitForLine(containing: "idle → loading")
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM))
    #expect(loadctl.stdoutLines.contains { $0.hasSuffix("loading → idle (cancelled)") })
    #expect(loadctl.stderrText == "terminated — cancelling (a second signal forces the exit)\n")
  }

  /// A run that keeps printing until its stdout closes (failing loads retried at once), so it
  /// must meet `head`'s exit with a write, however early or late `head` reads.
  @Test func closedPipeEndsQuietly() async throws {
    let stream = "profile --json --fail offline --retries 1000000 --backoff 0 --latency 1ms"
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash",
      arguments: [
        "-c", "\"$0\" \(stream) | head -n 1; echo \"${PIPESTATUS[0]}\" >&2",
        try BinaryLocator.locate(),
      ])
    #expect(outcome.stdout.count == 1)
    #expect(outcome.stdout.first?.contains("\"event\":\"start\"") == true)
    #expect(outcome.stderr == "141\n", "only the pipe status; loadctl itself prints nothing")
  }

  /// On virtual time, so the script's lines land exactly where it puts them against the
  /// latency: `load` while the first load runs, `cancel` after it ended.
  @Test func timedInputIgnoresDoubleLoadAndRejectsBadLines() async throws {
    let script = "# a comment\nload\n+150ms cancel\nbogus\n+50ms load\n"
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--clock", "virtual", "--latency", "100ms", "--input", "-"],
      stdin: .text(script))
    #expect(outcome.termination == .exited(65))
    let events = try JSONLines.parse(outcome.stdout)
    let ignored = events.filter { $0.event == "ignored" }
    #expect(ignored.map { $0.string("reason") } == ["already loading", "not loading"])
    #expect(ignored.map(\.elapsedMilliseconds) == [0, 150])
    #expect(events.contains { $0.event == "input_rejected" && $0.integer("line") == 4 })
    let states = events.filter { $0.event == "transition" }.compactMap {
      $0.value(at: "to.state") as? String
    }
    #expect(states == ["loading", "loaded", "loading", "loaded"], "lines after the bad one apply")
    #expect(
      outcome.stderr
        == "Error: input line 4: unknown action 'bogus' (expected load, retry, cancel or quit)\n")
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
  }

  /// A `quit` line ends the run as the `q` key does: a load or a retry's backoff in flight is
  /// cancelled, and the final state says so (it once stayed `loading`, or kept its retry
  /// pending). A run whose last attempt failed still ends failed.
  @Test(arguments: [
    ("quit\n", ["--latency", "100ms"], "idle", 0),
    (
      "+150ms quit\n", ["--fail", "x", "--retries", "2", "--backoff", "1s", "--latency", "100ms"],
      "failed", 1
    ),
  ])
  func aQuitLineCancelsWhatIsInFlight(
    script: String, options: [String], final: String, status: Int32
  ) async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--clock", "virtual", "--input", "-"] + options,
      stdin: .text(script))
    #expect(outcome.termination == .exited(status), "\(outcome.stderr)")
    let events = try JSONLines.parse(outcome.stdout)
    let end = try #require(events.last)
    #expect(end.value(at: "state.state") as? String == final, "\(outcome.stdout)")
    #expect(end.value(at: "state.retry_pending") as? Bool != true, "\(outcome.stdout)")
    #expect(
      events.contains { $0.event == "effect_finished" && $0.string("outcome") == "cancelled" })
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: outcome.stdout, schema: Self.schema) == [])
    }
  }

  @Test func profileFromFileKeepsItsFields() async throws {
    let file = try TemporaryFile(#"{"name":"Ana","city":"Porto","age":41}"#)
    let outcome = try await LoadctlProcess.run(["profile", "--file", file.path])
    #expect(outcome.termination == .exited(0))
    #expect(
      outcome.stdout.contains { $0.hasSuffix("loading → loaded(name: Ana, city: Porto, age: 41)") })
  }

  /// A `--file` that can be read only once (a pipe, `<(…)`) is read at the start and that
  /// profile is loaded: each load used to read it again, and found it empty.
  @Test func aFileThatIsAPipeIsReadOnce() async throws {
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh",
      arguments: [
        "-c", #"echo '{"name":"Bob"}' | "$0" profile --file /dev/stdin --clock virtual"#,
        try BinaryLocator.locate(),
      ])
    #expect(outcome.termination == .exited(0), "\(outcome.stdout) \(outcome.stderr)")
    #expect(outcome.stdout.contains { $0.hasSuffix("loading → loaded(name: Bob)") })
  }

  @Test func aFileLoadsAtOnceUnlessALatencyIsGiven() async throws {
    let file = try TemporaryFile(#"{"name":"Ana"}"#)
    for (extra, expected) in [([String](), 0.0), (["--latency", "250ms"], 250.0)] {
      let outcome = try await LoadctlProcess.run(
        ["profile", "--json", "--clock", "virtual", "--file", file.path] + extra)
      let events = try JSONLines.parse(outcome.stdout)
      let loaded = events.first { $0.value(at: "to.state") as? String == "loaded" }
      #expect(loaded?.elapsedMilliseconds == expected, "\(extra)")
    }
  }

  @Test(arguments: [
    (#"{"nam":"x"}"#, "has no string \"name\" field"),
    ("[1,2]", "must be an object"),
    ("{", "is not valid JSON"),
  ])
  func badProfileFileIsBadInput(contents: String, message: String) async throws {
    let file = try TemporaryFile(contents)
    let outcome = try await LoadctlProcess.run(["profile", "--file", file.path])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stdout.isEmpty)
    #expect(outcome.stderr.hasPrefix("Error: "))
    #expect(outcome.stderr.contains(message))
    #expect(outcome.stderr.split(separator: "\n").count == 1)
  }

  @Test func missingProfileFileIsBadInput() async throws {
    let outcome = try await LoadctlProcess.run(["profile", "--file", "/nonexistent/p.json"])
    #expect(outcome.termination == .exited(65))
    #expect(
      outcome.stderr
        == "Error: cannot open '/nonexistent/p.json' for --file: No such file or directory\n")
  }

  @Test func urlLoadsFromALocalServer() async throws {
    try await TestHTTPServer.withServer { server in
      let outcome = try await LoadctlProcess.run([
        "profile", "--json", "--url", server.urlString("/profile"), "--timeout", Self.noTimeout,
      ])
      #expect(outcome.termination == .exited(0))
      let events = try JSONLines.parse(outcome.stdout)
      #expect(events.last?.value(at: "state.profile.city") as? String == "Lisbon")
    }
  }

  @Test(arguments: ["/redirect?to=/profile", "/chunked"])
  func urlFollowsRedirectsAndReadsChunkedBodies(path: String) async throws {
    try await TestHTTPServer.withServer { server in
      let outcome = try await LoadctlProcess.run([
        "profile", "--json", "--url", server.urlString(path), "--timeout", Self.noTimeout,
      ])
      #expect(outcome.termination == .exited(0))
      #expect(outcome.stderr.isEmpty)
      let events = try JSONLines.parse(outcome.stdout)
      #expect(events.last?.value(at: "state.profile.name") as? String == "Taylor")
    }
  }

  @Test func urlNon2xxIsAFailureNamingTheStatus() async throws {
    try await TestHTTPServer.withServer { server in
      let outcome = try await LoadctlProcess.run([
        "profile", "--json", "--url", server.urlString("/status/404"), "--timeout",
        Self.noTimeout,
      ])
      #expect(outcome.termination == .exited(1))
      let events = try JSONLines.parse(outcome.stdout)
      let message = events.last?.value(at: "state.message") as? String
      // curl -f: exit status 22, and its own line naming the status.
      #expect(message?.hasPrefix("curl failed (exit status 22)") == true, "\(message ?? "")")
      #expect(message?.contains("404") == true, "\(message ?? "")")
    }
  }

  @Test func interruptingASlowRequestClosesItsConnection() async throws {
    try await TestHTTPServer.withServer { server in
      let loadctl = try LoadctlProcess.start([
        "profile", "--json", "--url", server.urlString("/slow"), "--timeout", Self.noTimeout,
      ])
      try await loadctl.waitForLine(where: JSONEvent.matching(["event": "effect_started"]))
      try await server.waitForLog(event: "request", path: "/slow")
      loadctl.send(signal: SIGINT)
      #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
      try await server.waitForLog(event: "dropped", path: "/slow")
      let events = try JSONLines.parse(loadctl.stdoutLines)
      #expect(
        events.contains { $0.event == "effect_finished" && $0.string("outcome") == "cancelled" })
      #expect(!events.contains { $0.value(at: "to.state") as? String == "failed" })
    }
  }

  @Test(arguments: [
    (["profile", "--latncy", "1s"], "Error: unknown option '--latncy'. Did you mean '--latency'?"),
    (["profile", "--latency", "3x"], "Error: invalid duration '3x' for '--latency'"),
    (["profle"], "Error: unknown subcommand 'profle'"),
    (["profile", "--url", "ftp://example.com/p"], "Error: unsupported URL scheme 'ftp'"),
    (["profile", "--file", "a", "--url", "http://x/"], "Error: '--file' and '--url' cannot"),
    (["profile", "--retries", "-1"], "Error: "),
  ])
  func usageErrorsExit64(arguments: [String], prefix: String) async throws {
    let outcome = try await LoadctlProcess.run(arguments)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stdout.isEmpty)
    #expect(outcome.stderr.hasPrefix(prefix), "\(outcome.stderr)")
    #expect(outcome.stderr.contains("See 'loadctl"))
  }

  @Test func helpAndVersion() async throws {
    let help = try await LoadctlProcess.run(["profile", "--help"])
    #expect(help.termination == .exited(0))
    #expect(
      help.stdout.first
        == "OVERVIEW: Load a profile: idle → loading → loaded | failed, with retry and")
    #expect(help.stdout.contains("USAGE: loadctl profile [options]"))
    let version = try await LoadctlProcess.run(["--version"])
    #expect(version.termination == .exited(0))
    #expect(version.stdout.first?.hasPrefix("loadctl ") == true)
  }

  /// `--version --json` is one JSON object: the versions a `start` event carries, nothing else.
  @Test(arguments: [["--version", "--json"], ["profile", "--json", "--version"]])
  func versionWithJSONIsTheVersionsOfStart(arguments: [String]) async throws {
    let version = try await LoadctlProcess.run(arguments)
    #expect(version.termination == .exited(0))
    #expect(version.stderr.isEmpty)
    let object = try #require(JSONLines.parse(version.stdout).first)
    #expect(version.stdout.count == 1)
    #expect(Set(object.fields.keys) == ["schema_version", "loadctl_version"])
    let run = try await LoadctlProcess.run(["profile", "--json", "--clock", "virtual"])
    let start = try #require(JSONLines.parse(run.stdout).first)
    #expect(start.event == "start")
    #expect(object.integer("schema_version") == start.integer("schema_version"))
    #expect(object.string("loadctl_version") == start.string("loadctl_version"))
  }
}

/// A file removed when the value goes away.
final class TemporaryFile: Sendable {
  let path: String

  init(_ contents: String) throws {
    path = NSTemporaryDirectory() + "loadctl-\(UUID().uuidString).json"
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}
