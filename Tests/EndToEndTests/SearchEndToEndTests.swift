import Foundation
import Testing

/// `loadctl search` as a user runs it: the built binary, its output, its exit.
@Suite(.processSlots) struct SearchEndToEndTests {
  @Test func aPositionalQuerySearchesOnceAfterTheDebounce() async throws {
    let outcome = try await LoadctlProcess.run(["search", "--json", "task"])
    #expect(outcome.termination == .exited(0))
    let events = try await SearchEvents.checked(outcome.stdout)
    #expect(
      events.transitions == [
        "query_changed task: idle → debouncing", "debounce_elapsed task: debouncing → searching",
        "response task: searching → results",
      ])
    #expect(events.requests == ["started task", "finished task"])
    let debounced = try #require(events.first(action: "debounce_elapsed")?.elapsedMilliseconds)
    #expect(debounced >= 300)
    let end = try #require(events.end)
    #expect(end.strings(at: "state.items").prefix(3) == ["Task", "TaskGroup", "TaskLocal"])
    #expect(end.value(at: "requests.started") as? Int == 1)
    #expect(end.string("reason") == "completed")
  }

  /// On virtual time, so no pause of the machine can split the typing with a debounce.
  @Test(arguments: [(false, 1), (true, 20)])
  func typingTwentyCharactersStartsOneRequestUnlessNaive(naive: Bool, requests: Int) async throws {
    let text = "withTaskCancellation"
    #expect(text.count == 20)
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--clock", "virtual", "--type", text, "--keystroke", "50ms"]
        + (naive ? ["--naive"] : []))
    #expect(outcome.termination == .exited(0))
    let events = try await SearchEvents.checked(outcome.stdout)
    let typed = events.all(action: "query_changed").compactMap { $0.string("query") }
    #expect(typed == (1...20).map { String(text.prefix($0)) })
    #expect(events.requests.filter { $0.hasPrefix("started") }.count == requests)
    #expect(events.requests.filter { $0.hasPrefix("cancelled") } == [])
    let end = try #require(events.end)
    #expect(end.value(at: "requests.started") as? Int == requests)
    #expect(end.strings(at: "state.items") == ["withTaskCancellationHandler(operation:onCancel:)"])
    // Keystrokes are scheduled at absolute offsets from the start: the 20th is at 950 ms.
    let offsets = events.all(action: "query_changed").compactMap(\.elapsedMilliseconds)
    #expect(offsets == (0..<20).map { Double($0 * 50) })
  }

  @Test func timedInputLinesCancelTheRequestInFlight() async throws {
    // "sw" is debounced for 500 ms and its request takes 5 s; "swi" comes at 1 s, "" at 1.1 s.
    // On virtual time, so each line lands exactly there, against the debounce and the request.
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--json", "--clock", "virtual", "--input", "-", "--debounce", "500ms",
        "--latency", "5s",
      ],
      stdin: .text("sw\n+1s swi\n+100ms \"\"\n"))
    #expect(outcome.termination == .exited(0))
    let events = try await SearchEvents.checked(outcome.stdout)
    #expect(events.requests == ["started sw", "cancelled sw"])
    #expect(
      events.transitions == [
        "query_changed sw: idle → debouncing", "debounce_elapsed sw: debouncing → searching",
        "query_changed swi: searching → debouncing", "query_changed : debouncing → idle",
      ])
    let changed = try #require(events.all(action: "query_changed").dropFirst().first)
    let cancelled = try #require(events.first(event: "request_cancelled"))
    // Right after the change: effect_queued (the new debounce waits), effect_finished, this.
    #expect(cancelled.integer("seq") == (changed.seq ?? 0) + 3)
    #expect(changed.elapsedMilliseconds == 1_000)
    #expect(events.end?.string(at: "state.state") == "idle")
  }

  @Test(arguments: [(true, 3), (false, 1)])
  func jitterMakesTheRaceVisibleOnlyInNaiveMode(naive: Bool, requests: Int) async throws {
    // With seed 23 and 1 s of jitter, requests 1, 2 and 3 take 910, 599 and 17 ms: the reverse
    // of the order they were typed in. On virtual time, so the three lines arrive together
    // however busy the machine is.
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--json", "--clock", "virtual", "--input", "-", "--latency", "0", "--jitter",
        "1s", "--seed", "23",
      ] + (naive ? ["--naive"] : []),
      stdin: .text("s\nsw\nswi\n"))
    #expect(outcome.termination == .exited(0))
    let events = try await SearchEvents.checked(outcome.stdout)
    let responses = events.all(action: "response").map {
      "\($0.string("query") ?? "?") stale=\($0["stale"] as? Bool ?? false)"
    }
    let end = try #require(events.end)
    #expect(end.value(at: "requests.started") as? Int == requests)
    if naive {
      #expect(responses == ["swi stale=false", "sw stale=true", "s stale=true"])
      #expect(end.string(at: "state.query") == "s")
      #expect(end.string("query") == "swi")
      #expect(end.value(at: "state.stale") as? Bool == true)
      #expect(end.value(at: "stale_responses") as? Int == 2)
    } else {
      #expect(responses == ["swi stale=false"])
      #expect(end.value(at: "state.stale") as? Bool == false)
      #expect(end.value(at: "stale_responses") as? Int == 0)
    }
  }

  @Test func onVirtualTimeTheRaceReplaysByteForByte() async throws {
    let arguments = [
      "search", "--naive", "--clock", "virtual", "--input", "-", "--latency", "0", "--jitter",
      "1s", "--seed", "23", "--limit", "2",
    ]
    let first = try await LoadctlProcess.run(arguments, stdin: .text("s\nsw\nswi\n"))
    let second = try await LoadctlProcess.run(arguments, stdin: .text("s\nsw\nswi\n"))
    #expect(first.termination == .exited(0))
    #expect(first.stdout == second.stdout)
    #expect(
      first.stdout == [
        #"  0.000s  search  typed "s"  idle → searching "s""#,
        #"  0.000s  search  request "s" started"#,
        #"  0.000s  search  typed "sw"  searching "s" → searching "sw""#,
        #"  0.000s  search  request "sw" started"#,
        #"  0.000s  search  typed "swi"  searching "sw" → searching "swi""#,
        #"  0.000s  search  request "swi" started"#,
        #"  0.016s  search  response "swi"  searching "swi" → results "swi" (2 of 33): "#
          + "Swift.abs, Swift.max",
        #"  0.016s  search  request "swi" finished in 17ms"#,
        #"  0.598s  search  STALE  response "sw"  results "swi" (2 of 33) → results "sw" "#
          + "(2 of 34): Swift.abs, Swift.max",
        #"  0.598s  search  request "sw" finished in 599ms"#,
        #"  0.909s  search  STALE  response "s"  results "sw" (2 of 34) → results "s" "#
          + "(2 of 361): Set, Shape",
        #"  0.909s  search  request "s" finished in 910ms"#,
        #"  0.909s  search  STALE results "s" (2 of 361): Set, Shape while the box says "swi"  "#
          + "[3 requests started, 0 cancelled, 2 stale]",
      ])
  }

  @Test func textOutputShowsResultsRequestsAndStaleMarks() async throws {
    let plain = try await LoadctlProcess.run(["search", "--limit", "2", "task"])
    #expect(plain.termination == .exited(0))
    #expect(plain.stdout.contains { $0.hasSuffix(#"request "task" started"#) })
    #expect(
      plain.stdout.last?.hasSuffix(
        #"results "task" (2 of 36): Task, TaskGroup  [1 request started, 0 cancelled]"#) == true)
    let quiet = try await LoadctlProcess.run(["search", "-q", "--limit", "1", "task"])
    #expect(quiet.stdout.count == 1)
    // The race on virtual time: on real time a pause between the lines changes who wins.
    let race = try await LoadctlProcess.run(
      [
        "search", "--naive", "--clock", "virtual", "--input", "-", "--latency", "0", "--jitter",
        "1s", "--seed", "23",
      ], stdin: .text("s\nsw\nswi\n"))
    #expect(race.stdout.filter { $0.contains("STALE  response") }.count == 2)
    #expect(
      race.stdout.last?.contains(#"STALE results "s" (10 of "#) == true
        && race.stdout.last?.contains(#"while the box says "swi""#) == true)
    #expect(race.stdout.allSatisfy { !$0.contains("\u{1B}[") })
  }

  @Test func aCorpusFileIsSearchedLikeTheBuiltInNames() async throws {
    let path = try SearchEvents.temporaryFile(
      "Sources/App.swift\nREADME.md\nSources/AppTests.swift\n")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--corpus", path, "--latency", "0", "APP"])
    #expect(outcome.termination == .exited(0))
    let events = try await SearchEvents.checked(outcome.stdout)
    #expect(events.start?.string(at: "options.source") == "corpus")
    #expect(events.start?.value(at: "options.names") as? Int == 3)
    #expect(
      events.end?.strings(at: "state.items") == ["Sources/App.swift", "Sources/AppTests.swift"])
  }

  @Test(arguments: [("", "has no names (one per line)"), (nil, "")])
  func anUnusableCorpusIsOneErrorAndExit65(contents: String?, problem: String) async throws {
    let path =
      try contents.map(SearchEvents.temporaryFile) ?? "/nonexistent/loadctl-names.txt"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let outcome = try await LoadctlProcess.run(["search", "--corpus", path, "swift"])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stdout == [])
    let expected =
      contents == nil
      ? "Error: cannot open '\(path)' for --corpus: No such file or directory\n"
      : "Error: '\(path)' for --corpus \(problem)\n"
    #expect(outcome.stderr == expected)
  }

  @Test func badInputLinesAreReportedAndTheRunEndsWith65() async throws {
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--input", "-", "--latency", "0"],
      stdin: .text("sw\n+soon swi\n\"unterminated\nswift\n"))
    #expect(outcome.termination == .exited(65))
    let events = try await SearchEvents.checked(outcome.stdout)
    #expect(
      events.all(event: "input_rejected").compactMap { $0.integer("line") } == [2, 3])
    #expect(events.end?.value(at: "rejected_lines") as? Int == 2)
    #expect(events.end?.string(at: "state.query") == "swift")
    #expect(outcome.stderr.hasPrefix("Error: input line 2: invalid time prefix '+soon'"))
  }

  @Test(arguments: [
    ([], "Error: missing query (give one, or '--type TEXT', or '--input FILE')"),
    (["--url", "http://127.0.0.1:1/search", "sw"], "Error: '--url' needs {query} where the"),
    (["--limit", "0", "sw"], "Error: invalid value '0' for '--limit' (must be 1 or more)"),
  ])
  func usageErrorsExit64WithHelp(arguments: [String], message: String) async throws {
    let outcome = try await LoadctlProcess.run(["search"] + arguments)
    #expect(outcome.termination == .exited(64))
    #expect(outcome.stderr.hasPrefix(message))
    #expect(outcome.stderr.contains("Usage: loadctl search [options] [<query>]"))
  }
}

/// A run's `--json` events, checked against the envelope and `docs/schema/search.schema.json`.
struct SearchEvents {
  /// `docs/schema/search.schema.json`, found from this file (`Tests/EndToEndTests/`).
  static let schema = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("docs/schema/search.schema.json")

  let events: [JSONEvent]

  /// Parses `lines`, and expects a sound envelope and (where python has jsonschema) a valid schema.
  static func checked(_ lines: [String]) async throws -> SearchEvents {
    let events = try JSONLines.parse(lines)
    #expect(JSONLines.envelopeProblems(events, command: "search") == [])
    if SchemaValidator.isAvailable {
      #expect(try await SchemaValidator.failures(of: lines, schema: schema) == [])
    }
    return SearchEvents(events: events)
  }

  var start: JSONEvent? { events.first }
  var end: JSONEvent? { events.last { $0.event == "end" } }

  func all(event name: String) -> [JSONEvent] { events.filter { $0.event == name } }
  func first(event name: String) -> JSONEvent? { all(event: name).first }

  func all(action: String) -> [JSONEvent] {
    all(event: "transition").filter { $0.string("action") == action }
  }

  func first(action: String) -> JSONEvent? { all(action: action).first }

  /// `query_changed sw: idle → debouncing`, one per transition.
  var transitions: [String] {
    all(event: "transition").map { event in
      let query = event.string("query").map { " \($0)" } ?? ""
      let from = event.string(at: "from.state") ?? "?"
      let to = event.string(at: "to.state") ?? "?"
      return "\(event.string("action") ?? "?")\(query): \(from) → \(to)"
    }
  }

  /// `started sw`, `cancelled sw`, `finished sw`, in order.
  var requests: [String] {
    events.compactMap { event in
      guard let name = event.event, name.hasPrefix("request_") else { return nil }
      return "\(name.dropFirst("request_".count)) \(event.string("query") ?? "?")"
    }
  }

  /// Writes `contents` to a new temporary file and returns its path.
  static func temporaryFile(_ contents: String) throws -> String {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("e2e-search-\(UUID().uuidString).txt")
    try contents.write(to: url, atomically: true, encoding: .utf8)
    return url.path
  }
}

extension JSONEvent {
  /// The string at a dotted path.
  func string(at path: String) -> String? { value(at: path) as? String }

  /// The strings of the array at a dotted path.
  func strings(at path: String) -> [String] { value(at: path) as? [String] ?? [] }
}
