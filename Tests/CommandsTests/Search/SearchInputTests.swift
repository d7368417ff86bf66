import LoadctlCore
import Synchronization
import Testing

@testable import LoadctlCommands

/// The search box's text from the argument, `--type` and `--input`, and the options around them.
@Suite struct SearchInputTests {
  @Test(arguments: [
    ("swift", "swift"), (#""""#, ""), (#"" sw ""#, " sw "), (##""#include""##, "#include"),
    (#"say "hi""#, #"say "hi""#), (#""\u00fc""#, "ü"),
  ])
  func anInputLineIsTheWholeBoxAndQuotesAreJSON(body: String, query: String) {
    #expect(SearchAction.parse(body) == .success(.queryChanged(query)))
  }

  @Test(arguments: [
    (#""abc"#, #"invalid quoted query "abc (unterminated string)"#),
    (#""a" b"#, #"invalid quoted query "a" b (unexpected content after JSON)"#),
  ])
  func aBadQuotedLineIsRejected(body: String, message: String) {
    #expect(SearchAction.parse(body) == .failure(LineProblem(message)))
  }

  @Test(arguments: ["swift", "", " sw", "sw ", "#1", "+x", "@y", "\"q\"", "a\tb", "ü"])
  func everyQueryRoundTripsThroughALine(query: String) throws {
    let line = try #require(
      try InputLine.parse("@1s \(SearchAction.line(typing: query))", number: 1))
    #expect(SearchAction.parse(line.body) == .success(.queryChanged(query)))
    #expect(line.timing == .at(.seconds(1)))
  }

  @Test func typingIsOneGrowingPrefixPerKeystrokeAtAbsoluteOffsets() {
    #expect(
      SearchQueries.script(typing: "sw ü", .milliseconds(120)) == [
        "@0s s", "@0.12s sw", "@0.24s \"sw \"", "@0.36s sw ü",
      ])
    #expect(SearchQueries.exact(.nanoseconds(1)) == "0.000000001s")
    #expect(SearchQueries.exact(.seconds(3)) == "3s")
    #expect(parseDuration(SearchQueries.exact(.milliseconds(50) * 7)) == .milliseconds(350))
  }

  @Test func typedKeystrokesArriveOnTheClockWithoutDrift() async {
    let clock = VirtualClock()
    let seen = Mutex<[String]>([])
    let input = TimedLines(
      lines: LineSource.lines(SearchQueries.script(typing: "swift", .milliseconds(50))),
      clock: LineClock(clock: clock, elapsed: { clock.now.offset }), parse: SearchAction.parse,
      reject: { error in seen.withLock { $0.append("rejected \(error)") } })
    let task = clock.launch {
      for await action in input {
        guard case .queryChanged(let query) = action else { continue }
        let now = clock.now.offset
        seen.withLock { $0.append("\(query)@\(now)") }
      }
    }
    #expect(clock.run())
    await task.value
    #expect(
      seen.withLock { $0 } == [
        "s@0.0 seconds", "sw@0.05 seconds", "swi@0.1 seconds", "swif@0.15 seconds",
        "swift@0.2 seconds",
      ])
  }

  // MARK: Options

  @Test(arguments: [
    ([], "missing query (give one, or '--type TEXT', or '--input FILE')"),
    (["swift", "--type", "sw"], "'<query>' and '--type' cannot be used together"),
    (["--type", "sw", "--input", "-"], "'--type' and '--input' cannot be used together"),
    (["--keystroke", "50ms", "swift"], "'--keystroke' only applies to '--type'"),
    (["--type", ""], "'--type' needs at least one character"),
    (
      ["--naive", "--debounce", "1s", "swift"],
      "'--debounce' does not apply to '--naive', which never debounces"
    ),
  ])
  func queriesComeFromExactlyOneSource(arguments: [String], message: String) throws {
    let invocation = try searchInvocation(arguments)
    let error = #expect(throws: UsageError.self) {
      try SearchQueries(invocation, mode: invocation.modeWithoutTerminal)
    }
    #expect(error?.message == message)
  }

  @Test(arguments: [
    (
      ["--corpus", "names.txt", "--url", "http://h/{query}", "q"],
      "'--corpus' and '--url' cannot be used together"
    ),
    (
      ["--exec", "grep -- {query} f", "--url", "http://h/{query}", "q"],
      "'--url' and '--exec' cannot be used together"
    ),
    (
      ["--corpus", "names.txt", "--exec", "grep -- {query} f", "q"],
      "'--corpus' and '--exec' cannot be used together"
    ),
    (["--timeout", "1s", "q"], "'--timeout' only applies to '--url' and '--exec'"),
    (["--kill-after", "1s", "q"], "'--kill-after' only applies to '--url' and '--exec'"),
    (
      ["--exec", "grep -- {query} f", "--header", "Accept: text/plain", "q"],
      "'--header' only applies to '--url'"
    ),
    (
      ["--url", "http://h/{query}", "--header", "Accept", "q"],
      "invalid header (expected 'Name: value'; it is not shown, as it may hold a secret)"
    ),
    (
      ["--url", "http://h/{query}", "--header", "A: 1", "--header", "X: S3CRET\r\nB: 2", "q"],
      "invalid header 'X: <redacted>' (a value cannot hold a line break) (--header number 2)"
    ),
    (
      ["--url", "http://h/{query}", "--clock", "virtual", "q"],
      "'--url' cannot be used with '--clock virtual': real processes do not run on virtual time"
    ),
    (
      ["--exec", "grep -- {query} f", "--clock", "virtual", "q"],
      "'--exec' cannot be used with '--clock virtual': real processes do not run on virtual time"
    ),
    (
      ["--exec", "grep -ril docs", "q"],
      "'--exec' needs {query} where the query goes, e.g. 'grep -ril -- {query} docs' (or "
        + "$LOADCTL_QUERY in a string of your own)"
    ),
    (
      ["--url", "http://user:pw@h/{query}", "q"],
      "credentials in URLs are not supported: 'http://<redacted>@h/swift' (send them with "
        + "--header 'Authorization: …') for '--url'"
    ),
  ])
  func backendOptionsMustFitTogether(arguments: [String], message: String) throws {
    let invocation = try searchInvocation(arguments)
    let error = #expect(throws: UsageError.self) {
      try SearchSource(invocation, mode: invocation.modeWithoutTerminal, environment: curlPath)
    }
    #expect(error?.message == message)
  }

  @Test func urlWithoutCurlOnThePathIsUnavailable() throws {
    let invocation = try searchInvocation(["--url", "http://h/{query}", "q"])
    let error = #expect(throws: ExternalCommand.Unavailable.self) {
      try SearchSource(
        invocation, mode: invocation.modeWithoutTerminal, environment: ["PATH": "/nonexistent"])
    }
    #expect(error?.message.hasPrefix("'--url' runs curl, which is not on PATH") == true)
  }

  @Test func theStartEventNamesTheCommandItsLimitsAndHeadersWithoutTheirValues() throws {
    let execInvocation = try searchInvocation(
      ["--exec", "grep -- {query} f", "--timeout", "3s", "--kill-after", "50ms", "q"])
    let exec = try SearchSource(
      execInvocation, mode: execInvocation.modeWithoutTerminal, environment: curlPath)
    #expect(
      JSONValue.object(Array(exec.options.prefix(4))).serialized
        == #"{"source":"exec","exec":"grep -- {query} f","timeout_ms":3000,"kill_after_ms":50}"#)
    let urlInvocation = try searchInvocation(
      ["--url", "http://h/{query}", "--header", "A: 1", "--header", "Authorization:Bearer x", "q"])
    let url = try SearchSource(
      urlInvocation, mode: urlInvocation.modeWithoutTerminal, environment: curlPath)
    #expect(
      JSONValue.object(Array(url.options.prefix(5))).serialized
        == #"{"source":"url","url":"http://h/{query}","timeout_ms":10000,"kill_after_ms":2000,"#
        + #""headers":["A: <redacted>","Authorization: <redacted>"]}"#)
  }

  @Test func theStartEventEchoesTheEffectiveOptions() throws {
    let invocation = try searchInvocation(["--type", "sw", "--jitter", "50ms", "--seed", "9"])
    let queries = try SearchQueries(invocation, mode: invocation.modeWithoutTerminal)
    let source = try SearchSource(
      invocation, mode: invocation.modeWithoutTerminal, environment: curlPath)
    #expect(
      JSONValue.object(source.options + queries.options).serialized
        == #"{"source":"builtin","names":\#(SearchCorpus.builtIn.names.count),"latency_ms":200,"#
        + #""jitter_ms":50,"seed":9,"limit":10,"query":null,"type":"sw","keystroke_ms":120,"#
        + #""input":null}"#)
  }

  @Test(arguments: [["--url", "http://h/{query}"], ["--exec", "grep -- {query} f"]])
  func withARealBackendTheSimulatedLatencyIsOnlyWhatIsAskedFor(backend: [String]) throws {
    let plainInvocation = try searchInvocation(backend + ["q"])
    let plain = try SearchSource(
      plainInvocation, mode: plainInvocation.modeWithoutTerminal, environment: curlPath)
    #expect(plain.latency.latency == .zero)
    let slowedInvocation = try searchInvocation(backend + ["--latency", "1s", "q"])
    let slowed = try SearchSource(
      slowedInvocation, mode: slowedInvocation.modeWithoutTerminal, environment: curlPath)
    #expect(slowed.latency.latency == .seconds(1))
  }
}

/// Where `--url` finds curl in these tests (it is not run).
private let curlPath = ["PATH": "/usr/local/bin:/usr/bin:/bin"]

/// Parses `loadctl search ARGUMENTS` with the real command table.
private func searchInvocation(_ arguments: [String]) throws -> Invocation {
  guard case .run(let invocation) = try parse(["search"] + arguments, spec: CommandTable.program)
  else { throw UsageError.invalidValue("not a run", command: nil) }
  return invocation
}
