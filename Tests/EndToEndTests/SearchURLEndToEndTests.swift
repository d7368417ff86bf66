import Foundation
import Testing

/// `loadctl search --url` (through curl) against the local test server, which records every
/// request and every connection a client dropped: proof that a cancelled search really closed
/// its request.
@Suite(.processSlots) struct SearchURLEndToEndTests {
  /// A `--timeout` no request reaches before the harness's failsafe: the default 10 s counts
  /// curl's own start, which a busy machine can stretch past it.
  static let noTimeout = ["--timeout", "600s"]

  @Test func theTemplateGetsThePercentEncodedQueryAndTheServersOrder() async throws {
    try await TestHTTPServer.withServer { server in
      let template = server.urlString("/search?q={query}")
      let outcome = try await LoadctlProcess.run(
        ["search", "--json", "--url", template, "--limit", "4", "--debounce", "0"] + Self.noTimeout
          + ["Task"])
      #expect(outcome.termination == .exited(0))
      let events = try await SearchEvents.checked(outcome.stdout)
      let end = try #require(events.end)
      #expect(
        end.strings(at: "state.items") == [
          "Task", "Task.sleep", "TaskGroup", "withTaskCancellationHandler",
        ])
      #expect(end.value(at: "state.total") as? Int == 6)
      #expect(events.start?.value(at: "options.latency_ms") as? Int == 0)

      let odd = try await LoadctlProcess.run(
        ["search", "--json", "--url", template, "--debounce", "0"] + Self.noTimeout + ["a&b c/ü"])
      #expect(odd.termination == .exited(0))
      #expect(try await SearchEvents.checked(odd.stdout).end?.strings(at: "state.items") == [])
      let requests = try await server.log().filter { $0.event == "request" }.map(\.q)
      #expect(requests == ["Task", "a&b c/ü"])
    }
  }

  @Test func aNewerQueryDropsTheConnectionOfTheRequestInFlight() async throws {
    try await TestHTTPServer.withServer { server in
      let loadctl = try LoadctlProcess.start(
        [
          "search", "--json", "--input", "-", "--debounce", "100ms",
          // A timeout no slow run reaches: the request must end by cancellation, not by itself.
          "--url", server.urlString("/search?q={query}&delay=60000"), "--timeout", "600s",
        ], stdin: .pipe)
      try loadctl.write(toStdin: "sw\n")
      try await server.waitForLog(event: "request", path: "/search", q: "sw")
      try loadctl.write(toStdin: "swi\n")
      try await loadctl.waitForLine(
        where: JSONEvent.matching(["event": "request_cancelled", "query": "sw"]))
      try await server.waitForLog(event: "cancelled", q: "sw")

      try await server.waitForLog(event: "request", path: "/search", q: "swi")
      try loadctl.write(toStdin: "\"\"\n")
      try await server.waitForLog(event: "cancelled", q: "swi")
      loadctl.closeStdin()
      #expect(try await loadctl.waitForExit() == .exited(0))

      let events = try await SearchEvents.checked(loadctl.stdoutLines)
      #expect(events.requests == ["started sw", "cancelled sw", "started swi", "cancelled swi"])
      #expect(events.end?.string(at: "state.state") == "idle")
      #expect(try await server.log().filter { $0.event == "request" }.count == 2)
    }
  }

  @Test func aFailingServerEndsFailedWithExit1() async throws {
    try await TestHTTPServer.withServer { server in
      let outcome = try await LoadctlProcess.run(
        ["search", "--json", "--url", server.urlString("/status/503?q={query}")] + Self.noTimeout
          + ["swift"])
      #expect(outcome.termination == .exited(1))
      let events = try await SearchEvents.checked(outcome.stdout)
      let end = try #require(events.end)
      #expect(end.string("reason") == "failed")
      #expect(end.string(at: "state.state") == "failed")
      // curl -f: exit status 22, and its own line naming the status.
      let message = end.string(at: "state.message") ?? ""
      #expect(message.hasPrefix("curl failed (exit status 22): "), "\(message)")
      #expect(message.contains("503"), "\(message)")
      #expect(events.requests == ["started swift", "finished swift"])
      #expect(events.first(event: "request_finished")?["ok"] as? Bool == false)
    }
  }

  @Test func sigintWhileSearchingCancelsTheRequestAndDiesBySignal() async throws {
    try await TestHTTPServer.withServer { server in
      let loadctl = try LoadctlProcess.start(
        [
          // Under a sanitizer on a busy machine the signal can come later than the default 10 s
          // timeout; the request must end by the signal, not by itself.
          "search", "--json", "--url", server.urlString("/search?q={query}&delay=60000"),
          "--timeout", "600s", "sw",
        ])
      try await loadctl.waitForLine(where: JSONEvent.matching(["event": "request_started"]))
      try await server.waitForLog(event: "request", path: "/search", q: "sw")
      loadctl.send(signal: SIGINT)
      #expect(try await loadctl.waitForExit() == .signaled(SIGINT))
      try await server.waitForLog(event: "cancelled", q: "sw")
      #expect(loadctl.leftoverProcesses() == [])

      let events = try await SearchEvents.checked(loadctl.stdoutLines)
      #expect(events.transitions.last == "interrupt: searching → idle")
      #expect(events.requests == ["started sw", "cancelled sw"])
      let end = try #require(events.end)
      #expect(end.string("reason") == "interrupted")
      #expect(end.integer("exit_code") == 130)
      #expect(end.value(at: "requests.cancelled") as? Int == 1)
    }
  }
}
