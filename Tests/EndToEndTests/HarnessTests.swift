import Foundation
import Testing

/// Proves the end-to-end harness against standard tools, so that a failing loadctl test points
/// at loadctl and not at the harness. Nothing here runs loadctl.
@Suite(.processSlots) struct HarnessTests {
  @Test func deathBySignalIsNotAnExitStatus() async throws {
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/sh", arguments: ["-c", "echo a; kill -INT $$"])
    #expect(outcome.termination == .signaled(SIGINT))
    #expect(outcome.termination != .exited(130))
    #expect(outcome.stdout == ["a"])
  }

  /// A failure message must explain a real-time run on its own: every line with when it came,
  /// the lines the test waited for, the signals it sent and when, and the exit.
  @Test func theTranscriptIsATimelineOfOutputWaitsAndSignals() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh",
      arguments: ["-c", "echo one; echo two >&2; echo three; exec sleep 100"]
    )
    try await shell.waitForLine(containing: "three")
    try await shell.waitForStderr(containing: "two")
    shell.send(signal: SIGTERM)
    #expect(try await shell.waitForExit() == .signaled(SIGTERM))
    shell.send(signal: SIGINT)
    let lines = shell.transcript.split(separator: "\n").map(String.init)
    /// The text of each timeline entry, without its time, and the times in order.
    let entries = lines.drop { !$0.hasPrefix("timeline") }.dropFirst().map {
      $0.drop { $0 == " " }.split(separator: " ", maxSplits: 1).map(String.init)
    }
    let times = entries.compactMap { Double($0[0].dropFirst()) }
    #expect(times.count == entries.count && times == times.sorted(), "\(shell.transcript)")
    let texts = entries.map { $0.count > 1 ? $0[1] : "" }
    #expect(texts.contains("stdout | one"), "\(shell.transcript)")
    #expect(texts.contains("stdout | three   <- waited for a line containing \"three\""))
    #expect(texts.contains("stderr | two   <- waited for a line containing \"two\""))
    let signal = texts.firstIndex(of: "-- SIGTERM sent to pid \(shell.pid)")
    let reaped = texts.firstIndex(of: "-- reaped: signaled(SIGTERM)")
    let late = texts.firstIndex(of: "-- SIGINT not sent: the process was reaped")
    #expect(signal != nil && reaped != nil && late != nil, "\(shell.transcript)")
    #expect(signal ?? 0 < reaped ?? 0 && reaped ?? 0 < late ?? 0, "\(shell.transcript)")
  }

  @Test func exitStatusIsReported() async throws {
    let outcome = try await LoadctlProcess.run(executable: "/bin/sh", arguments: ["-c", "exit 3"])
    #expect(outcome.termination == .exited(3))
    #expect(outcome.termination.shellStatus == 3)
  }

  @Test func waitForLineSeesOutputWrittenBeforeABlockingRead() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh",
      arguments: ["-c", "echo ready; read reply; echo \"got $reply\"; read more || echo eof"],
      stdin: .pipe)
    try await shell.waitForLine(containing: "ready")
    try shell.write(toStdin: "hello\n")
    #expect(try await shell.waitForLine { $0.hasPrefix("got ") } == "got hello")
    shell.closeStdin()
    try await shell.waitForLine(containing: "eof")
    #expect(try await shell.waitForExit() == .exited(0))
    #expect(shell.stdoutLines == ["ready", "got hello", "eof"])
  }

  @Test func waitForStderrSeesErrorOutput() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh", arguments: ["-c", "echo oops >&2; read line; exit 2"], stdin: .pipe)
    #expect(try await shell.waitForStderr(containing: "oops") == "oops")
    shell.closeStdin()
    #expect(try await shell.waitForExit() == .exited(2))
    #expect(shell.stderrText == "oops\n")
  }

  @Test func waitsMatchLinesInOrderIncludingEarlierOnes() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh", arguments: ["-c", "printf 'one\\ntwo\\nthree\\nfour'"])
    try await shell.waitForExit()
    // All lines are in before the first wait; the waits still match them one after another.
    #expect(try await shell.waitForLine(containing: "t") == "two")
    #expect(try await shell.waitForLine(containing: "t") == "three")
    #expect(try await shell.waitForLine(containing: "four") == "four")
    #expect(shell.stdoutLines == ["one", "two", "three", "four"])
  }

  @Test func aFloodOfOutputIsSplitIntoLines() async throws {
    let counter = try LoadctlProcess.start(executable: "seq", arguments: ["1", "200000"])
    #expect(try await counter.waitForLine { $0 == "100000" } == "100000")
    #expect(try await counter.waitForLine(containing: "200000") == "200000")
    #expect(try await counter.waitForExit() == .exited(0))
    #expect(counter.stdoutLines.count == 200_000)
    #expect(counter.stdoutLines.last == "200000")
  }

  @Test func aWaitFailsAtOnceWhenOutputEnds() async throws {
    let shell = try LoadctlProcess.start(executable: "/bin/sh", arguments: ["-c", "echo only"])
    let error = await #expect(throws: HarnessError.self) {
      try await shell.waitForLine(containing: "never", timeout: .seconds(600))
    }
    #expect(error?.isStreamEnded == true)
    #expect(error?.description.contains("only") == true)
  }

  @Test func theFailsafeTimeoutReportsTheOutputSoFar() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh", arguments: ["-c", "echo partial; read line; exit 0"], stdin: .pipe)
    let error = await #expect(throws: HarnessError.self) {
      try await shell.waitForLine(containing: "never", timeout: .milliseconds(200))
    }
    #expect(error?.isTimeout == true)
    #expect(error?.description.contains("| partial") == true)
    shell.closeStdin()
    #expect(try await shell.waitForExit() == .exited(0))
  }

  @Test func stdinCanBeAFileTextOrNull() async throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("e2e-stdin-\(UUID().uuidString).txt")
    try "from file\n".write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }

    let fromFile = try await LoadctlProcess.run(
      executable: "cat", arguments: [], stdin: .file(file.path))
    #expect(fromFile.stdout == ["from file"])
    let fromText = try await LoadctlProcess.run(
      executable: "cat", arguments: [], stdin: .text("a\nb\n"))
    #expect(fromText.stdout == ["a", "b"])
    let fromNull = try await LoadctlProcess.run(executable: "cat", arguments: [])
    #expect(fromNull.stdout.isEmpty)
    #expect(fromNull.termination == .exited(0))
  }

  @Test func environmentCanBeExtendedAndTrimmed() async throws {
    let outcome = try await LoadctlProcess.run(
      executable: "/usr/bin/env", arguments: [],
      environment: ["LOADCTL_E2E_PROBE": "yes"], unsetting: ["PATH"])
    #expect(outcome.stdout.contains("LOADCTL_E2E_PROBE=yes"))
    #expect(!outcome.stdout.contains { $0.hasPrefix("PATH=") })
    let merged = Spawner.environment(
      adding: ["B": "2"], removing: ["COLUMNS"], base: ["COLUMNS": "80", "B": "1"])
    #expect(merged == ["B": "2"])
  }

  @Test func childrenLeftBehindAreFound() async throws {
    let shell = try LoadctlProcess.start(
      executable: "/bin/sh", arguments: ["-c", "sleep 300 >/dev/null 2>&1 & echo $!"])
    let orphan = try #require(Int32(try await shell.waitForLine { Int32($0) != nil }))
    #expect(try await shell.waitForExit() == .exited(0))
    #expect(shell.leftoverProcesses().contains(orphan))
    shell.sendToGroup(signal: SIGKILL)

    let tidy = try LoadctlProcess.start(executable: "/bin/sh", arguments: ["-c", "echo done"])
    try await tidy.waitForExit()
    #expect(tidy.leftoverProcesses() == [])
  }

  @Test func aMissingExecutableIsReported() throws {
    #expect(throws: HarnessError.self) {
      try LoadctlProcess.start(executable: "/nonexistent/loadctl", arguments: [])
    }
    let error = #expect(throws: HarnessError.self) {
      try BinaryLocator.locate(environment: ["LOADCTL_BIN_NAME": "no-such-binary-e2e"])
    }
    #expect(error?.description.contains("searched") == true)
  }

  @Test func aPipelineReportsHowEachSideEnded() async throws {
    let outcome = try await LoadctlPipeline.run(
      executable: "/bin/sh", arguments: ["-c", "while :; do echo y; done"],
      into: ["head", "-n", "3"])
    print(outcome)
    #expect(outcome.output == ["y", "y", "y"])
    #expect(outcome.downstream == .exited(0))
    #expect(outcome.upstream == .signaled(SIGPIPE))
  }

  @Test func jsonPredicatesAndEnvelopeChecks() async throws {
    let lines = [
      #"{"seq":1,"elapsed_ms":0,"command":"profile","event":"start"}"#,
      #"{"seq":2,"elapsed_ms":1.5,"command":"profile","event":"transition","to":{"state":"loading"}}"#,
      #"{"seq":3,"elapsed_ms":2,"command":"profile","event":"end"}"#,
    ]
    let shell = try LoadctlProcess.start(
      executable: "cat", arguments: [], stdin: .text(lines.joined(separator: "\n")))
    let loading = try await shell.waitForLine(where: JSONEvent.matching(["to.state": "loading"]))
    #expect(try JSONEvent(parsing: loading).seq == 2)
    try await shell.waitForExit()
    #expect(JSONLines.envelopeProblems(of: shell.stdoutLines, command: "profile") == [])

    let broken = [
      #"{"seq":1,"elapsed_ms":5,"command":"profile","event":"state"}"#,
      #"{"seq":3,"elapsed_ms":4,"event":"end"}"#,
    ]
    #expect(
      JSONLines.envelopeProblems(of: broken) == [
        "line 2: seq is 3, expected 2",
        "line 2: elapsed_ms 4.0 is less than 5.0 before it",
        "line 2: missing or non-string command",
        "first event is state, expected start",
      ])
    #expect(JSONLines.envelopeProblems(of: ["[1]"]).first?.contains("not a JSON object") == true)
  }

  @Test(.enabled(if: SchemaValidator.isAvailable))
  func schemaValidatorReportsEachInvalidLine() async throws {
    let schema = FileManager.default.temporaryDirectory
      .appendingPathComponent("e2e-schema-\(UUID().uuidString).json")
    try #"""
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
     "required": ["seq"], "properties": {"seq": {"type": "integer"}}}
    """#.write(to: schema, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: schema) }

    let valid = try await SchemaValidator.failures(of: [#"{"seq":1}"#], schema: schema)
    #expect(valid == [])
    let invalid = try await SchemaValidator.failures(
      of: [#"{"seq":1}"#, #"{"seq":"two"}"#, "nope"], schema: schema)
    #expect(invalid.count == 2)
    #expect(invalid.first?.hasPrefix("line 2: /seq:") == true)
    #expect(invalid.last?.hasPrefix("line 3: invalid JSON") == true)
  }

  @Test func httpServerAnswersItsRoutes() async throws {
    try await TestHTTPServer.withServer { server in
      let profile = try await server.get("/profile")
      #expect(profile.status == 200)
      #expect(profile.body == #"{"name":"Taylor","city":"Lisbon"}"#)
      #expect(try await server.get("/status/503").status == 503)
      #expect(
        try await server.get("/search?q=SW").body == #"["Swift.print","SwiftUI.List","swap"]"#)
      #expect(try await server.get("/badjson").body == #"{"nam":1}"#)
      #expect(try await server.get("/notjson").body.hasPrefix("<!doctype html>"))
      let requests = try await server.log().filter { $0.event == "request" }
      #expect(requests.count == 5)
    }
  }

  @Test func httpServerRecordsDroppedConnections() async throws {
    try await TestHTTPServer.withServer { server in
      for path in ["/slow", "/search?q=sw&delay=600000"] {
        let client = try server.startRequest(path)
        // Drop only once the server has the request, so the drop is the client's doing.
        try await server.waitForLog(event: "request", path: try server.url(path).path)
        client.send(signal: SIGKILL)
        #expect(try await client.waitForExit() == .signaled(SIGKILL))
      }
      try await server.waitForLog(event: "dropped", path: "/slow")
      try await server.waitForLog(event: "cancelled", q: "sw")
    }
  }
}
