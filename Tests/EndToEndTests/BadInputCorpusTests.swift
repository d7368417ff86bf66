import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The first things a careful reviewer feeds loadctl to break it, each with the answer the README
/// promises: the documented exit status, exactly one `Error:` line on stderr (followed by the two
/// usage lines for a usage error), and never a crash, a backtrace or a raw control character.
///
/// Every row is one line. A new subcommand adds its rows with the same constructors, plus one
/// entry in ``BadInputCase/lineContexts`` for its input-line rows: the valid lines run around
/// the bad one and the transitions they must make, proving the bad line was skipped, not fatal.
@Suite(.processSlots) struct BadInputCorpusTests {
  @Test(arguments: BadInputCase.all.filter(\.unreadable.isEmpty))
  func answersWithOneErrorLineAndTheDocumentedStatus(_ row: BadInputCase) async throws {
    try await check(row)
  }

  /// The rows with a chmod 000 file, apart because root reads such a file anyway.
  @Test(
    .enabled(if: geteuid() != 0, "running as root, which chmod 000 does not stop from reading"),
    arguments: BadInputCase.all.filter { !$0.unreadable.isEmpty })
  func unreadableFilesAreBadInput(_ row: BadInputCase) async throws {
    try await check(row)
  }

  @Test func theCorpusHasAtLeastSixtyCases() {
    #expect(BadInputCase.all.count >= 60)
  }

  /// A closed stdin used to be replaced by libdispatch's epoll descriptor, which `--file -` read
  /// ("Invalid argument"); it now reads as empty, like /dev/null.
  @Test func aClosedStandardInputReadsAsEmpty() async throws {
    let binary = try BinaryLocator.locate()
    let outcome = try await LoadctlProcess.run(
      executable: "/bin/bash", arguments: ["-c", #""$0" profile --file - <&-"#, binary])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stderr == "Error: '-' is not valid JSON: unexpected end of input at byte 0\n")
  }

  /// The profile read from stdin at start is the one the load returns (it used to read stdin again).
  @Test func aProfileFromStandardInputLoads() async throws {
    let outcome = try await LoadctlProcess.run(
      ["profile", "--file", "-", "--json", "--clock", "virtual"],
      stdin: .text(#"{"name":"Stdin","city":"Seoul"}"#))
    #expect(outcome.termination == .exited(0))
    #expect(outcome.stderr.isEmpty)
    let events = try JSONLines.parse(outcome.stdout)
    #expect(events.last?.value(at: "state.profile.name") as? String == "Stdin")
    #expect(events.last?.value(at: "state.profile.city") as? String == "Seoul")
  }

  /// Without `--json` nothing reaches stdout; with it, exactly one `error` event (before `--`).
  private func expectErrorEventOnlyWithJSON(
    _ row: BadInputCase, _ stdout: [String], kind: String
  ) throws {
    guard row.arguments.prefix(while: { $0 != "--" }).contains("--json") else {
      #expect(stdout.isEmpty)
      return
    }
    let events = try JSONLines.parse(stdout)
    #expect(events.count == 1)
    #expect(events.first?.event == "error")
    #expect(events.first?.string("kind") == kind)
    #expect(events.first?.integer("exit_code") == Int(row.expected.status))
  }

  private func check(_ row: BadInputCase) async throws {
    let directory = try row.makeFiles()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outcome = try await LoadctlProcess.run(
      row.arguments.map { $0.replacingOccurrences(of: "{tmp}", with: directory) },
      stdin: row.stdin.map { .file(directory + "/" + $0) } ?? .null, unsetting: ["COLUMNS"])
    let stderr = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false)
      .dropLast().map(String.init)
    let message = row.expected.message.replacingOccurrences(of: "{tmp}", with: directory)

    #expect(outcome.termination == .exited(row.expected.status))
    #expect(outcome.stderr.isEmpty || outcome.stderr.hasSuffix("\n"))
    for crash in ["Fatal error", "Backtrac", "*** ", "Program crashed", "Thread 0"] {
      #expect(!outcome.stderr.contains(crash), "crash output on stderr: \(outcome.stderr)")
    }
    #expect(
      !outcome.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
      "raw control character on stderr")
    switch row.expected {
    case .usage(_, let command):
      let help = command.map { "loadctl \($0) --help" } ?? "loadctl --help"
      #expect(stderr.count == 3)
      if message.hasSuffix("…") {  // a list that grows as subcommands are added
        #expect(stderr.first?.hasPrefix("Error: \(message.dropLast())") == true, "\(stderr)")
      } else {
        #expect(stderr.first == "Error: \(message)")
      }
      #expect(
        stderr.dropFirst().first?.hasPrefix("Usage: loadctl \(command ?? "<subcommand>")") == true)
      #expect(stderr.last == "See '\(help)' for more information.")
      try expectErrorEventOnlyWithJSON(row, outcome.stdout, kind: "usage")
    case .badFile:
      #expect(stderr == ["Error: \(message)"])
      try expectErrorEventOnlyWithJSON(row, outcome.stdout, kind: "bad_input")
    case .badLine(let command, _):
      let context = try #require(BadInputCase.lineContexts[command])
      let line = context.before.count + 1
      #expect(stderr == ["Error: input line \(line): \(message)"])
      let events = try JSONLines.parse(outcome.stdout)
      #expect(JSONLines.envelopeProblems(events, command: command) == [])
      let applied = events.filter { $0.event == "transition" }.compactMap { $0.string("action") }
      #expect(applied == context.applied, "the valid lines around the bad one must all apply")
      let rejected = events.filter { $0.event == "input_rejected" }
      #expect(rejected.map { $0.integer("line") } == [line])
      #expect(events.last?.event == "end")
      #expect(events.last?.integer("exit_code") == 65)
      #expect(events.last?.integer("rejected_lines") == 1)
    case .flowFailed(let command, _):
      #expect(stderr == [], "a flow that ran and failed reports it on stdout, not as an Error:")
      let events = try JSONLines.parse(outcome.stdout)
      #expect(JSONLines.envelopeProblems(events, command: command) == [])
      #expect(events.last?.string("reason") == "failed")
      let final = events.last?.value(at: "state.message") as? String
      #expect(final?.contains(message) == true, "\(final ?? "no state.message")")
    }
  }
}

extension BadInputCase {
  /// Per subcommand, how its input-line rows run (see ``LineContext``).
  static let lineContexts: [String: LineContext] = [
    "profile": LineContext(
      arguments: ["--latency", "1s"], before: ["cancel", "# a comment", ""], after: ["load"],
      applied: ["load", "cancel", "load", "load_response"]),
    "search": LineContext(
      arguments: [], before: ["sw"], after: ["swift"],
      applied: ["query_changed", "query_changed", "debounce_elapsed", "response"]),
  ]

  private static let urlForms = "(use scheme://host, such as http://localhost:8080)"
  private static let durations =
    "(use a number with a unit, at most 1000000000s: 250us, 300ms, 1.5s, 2m, 1h)"
  private static let prefixForms = "(use +DURATION or @DURATION, e.g. +300ms, @1.5s)"
  private static let actions = "(expected load, retry, cancel or quit)"

  /// The table. Paths are `{tmp}/…`; `{tmp}` is a fresh directory per case. A usage message
  /// ending in `…` is a prefix.
  static let all: [BadInputCase] =
    global + profileOptions + profileFiles + profileLines + search
    + [
      // A timeout curl never reaches, however slowly it starts: the failure is the refusal.
      .flowFailed(
        "profile", ["--url", "http://127.0.0.1:1/", "--timeout", "600s"],
        "curl failed (exit status 7)")
    ]

  private static let global: [BadInputCase] = [
    .usage(nil, ["bogus"], "unknown subcommand 'bogus'"),
    .usage(nil, ["profil"], "unknown subcommand 'profil'. Did you mean 'profile'?"),
    .usage(nil, ["version"], "unknown subcommand 'version'. Did you mean '--version'?"),
    .usage(nil, ["--bogus", "profile"], "unknown option '--bogus'"),
    .usage(nil, ["-x", "profile"], "unknown option '-x'"),
    .usage(
      nil, ["--latency", "1s", "profile"], "option '--latency' must come after its subcommand"),
    .usage(nil, ["--", "--json"], "unknown subcommand '--json'"),
    .usage(nil, ["--clock"], "missing value for '--clock'"),
    .usage(
      nil, ["--clock", "sideways", "profile"],
      "invalid value 'sideways' for '--clock' (choose from continuous, virtual)"),
    .usage(nil, ["--version=2"], "option '--version' does not take a value"),
    .usage(nil, ["prof\nile"], #"unknown subcommand 'prof\nile'. Did you mean 'profile'?"#),
    .usage(nil, ["\u{1B}[2J"], #"unknown subcommand '\u{1B}[2J'"#),
    .usage(nil, ["help", "bogus"], "unknown subcommand 'bogus'"),
    .usage("completions", [], "missing argument '<shell>'"),
    .usage(
      "completions", ["tcsh"], "invalid value 'tcsh' for '<shell>' (choose from bash, zsh, fish)"),
    .usage("completions", ["bash", "zsh"], "unexpected argument 'zsh'"),
    .usage(
      "completions", ["bash", "--trace", "x"], "option '--trace' cannot be used with 'completions'"),
    .usage(
      nil, [String(repeating: "x", count: 100_000)],
      "unknown subcommand '\(String(repeating: "x", count: 100_000))'"),
  ]

  private static let profileOptions: [BadInputCase] = [
    .usage("profile", ["--bogus"], "unknown option '--bogus'"),
    .usage("profile", ["--lat", "1s"], "unknown option '--lat'. Did you mean '--latency'?"),
    .usage("profile", ["--latncy", "1s"], "unknown option '--latncy'. Did you mean '--latency'?"),
    .usage("profile", ["-qz"], "unknown option '-qz'"),
    .usage("profile", ["--latency"], "missing value for '--latency'"),
    .usage("profile", ["--latency", "--json"], "missing value for '--latency'"),
    .usage("profile", ["--latency", "-1s"], "invalid duration '-1s' for '--latency' \(durations)"),
    .usage("profile", ["--file"], "missing value for '--file'"),
    .usage("profile", ["--retries"], "missing value for '--retries'"),
    .usage("profile", ["--latency", "5"], "invalid duration '5' for '--latency' \(durations)"),
    .usage("profile", ["--latency=-1s"], "invalid duration '-1s' for '--latency' \(durations)"),
    .usage(
      "profile", ["--latency", "1.5.5s"], "invalid duration '1.5.5s' for '--latency' \(durations)"),
    .usage(
      "profile", ["--latency", "1e3s"], "invalid duration '1e3s' for '--latency' \(durations)"),
    .usage("profile", ["--latency="], "invalid duration '' for '--latency' \(durations)"),
    .usage(
      "profile", ["--latency", "9223372036854775807s"],
      "invalid duration '9223372036854775807s' for '--latency' \(durations)"),
    .usage("profile", ["--timeout", "inf"], "invalid duration 'inf' for '--timeout' \(durations)"),
    .usage(
      "profile", ["--exec", "true", "--timeout", "0"],
      "invalid value '0' for '--timeout' (must be more than 0)"),
    .usage(
      "profile", ["--url", "http://127.0.0.1:1/", "--json", "--timeout=0s"],
      "invalid value '0s' for '--timeout' (must be more than 0)"),
    .usage(
      "profile", ["--exec", "true", "--timeout", "-1s"],
      "invalid duration '-1s' for '--timeout' \(durations)"),
    .usage(
      "profile", ["--backoff", "1sec"], "invalid duration '1sec' for '--backoff' \(durations)"),
    .usage(
      "profile", ["--retries", "-1"], "invalid value '-1' for '--retries' (must be 0 or more)"),
    .usage("profile", ["--retries", "abc"], "invalid integer 'abc' for '--retries'"),
    .usage("profile", ["--retries", "1.5"], "invalid integer '1.5' for '--retries'"),
    .usage(
      "profile", ["--retries", "99999999999999999999"],
      "invalid integer '99999999999999999999' for '--retries'"),
    .usage("profile", ["--json=yes"], "option '--json' does not take a value"),
    .usage("profile", ["--quiet=1"], "option '--quiet' does not take a value"),
    .usage("profile", ["--no-color=false"], "option '--no-color' does not take a value"),
    .usage("profile", ["extra"], "unexpected argument 'extra'"),
    .usage("profile", ["--", "--json"], "unexpected argument '--json'"),
    .usage("profile", ["--latency", "1s", "--", "load"], "unexpected argument 'load'"),
    .usage(
      "profile", ["--file", ""],
      "empty path for '--file' (use a file path, or - for standard input)"),
    .usage(
      "profile", ["--input="], "empty path for '--input' (use a file path, or - for standard input)"
    ),
    .usage("profile", ["--record", ""], "empty path for '--record' (use a file path)"),
    .usage("replay", [""], "empty path for '<recording>' (use a file path)"),
    .usage(
      "replay", ["-"],
      "'<recording>' is read from a file, not standard input (for a file named -, give ./-)"),
    .usage(
      "replay", ["--clock", "virtual", "run.jsonl"],
      "'--clock' cannot be used with 'replay': a replay runs with the recorded run's options"),
    .usage(
      "replay", ["--deny", "all", "run.jsonl"],
      "'--deny' cannot be used with 'replay': a replay runs with the recorded run's options"),
    .usage(
      "replay", ["-i", "run.jsonl"],
      "'--interactive' cannot be used with 'replay': a replay runs with the recorded run's "
        + "options"),
    .usage("counter", ["--trace="], "empty path for '--trace' (use a file path)"),
    .usage(
      "counter", ["x"],
      "argument 1: unknown action 'x' (expected +, -, d or c; or inc, dec, delayed, cancel)"),
    .usage(
      "counter", ["--json", "c", "+soon d"],
      "argument 2: invalid time prefix '+soon' (use +DURATION or @DURATION, e.g. +300ms, @1.5s)"),
    .usage("ticker", ["--min", "-inf"], "invalid number '-inf' for '--min' (must be finite)"),
    .usage("ticker", ["--max=nan"], "invalid number 'nan' for '--max' (must be finite)"),
    .usage(
      "timer", ["--interval", "0.0000000001s"],
      "invalid value '0.0000000001s' for '--interval' (must be at least 1ns)"),
    .usage(
      "timer", ["--json", "--interval", "0"],
      "invalid value '0' for '--interval' (must be more than 0)"),
    .usage(
      "profile", ["--file", "-", "--input", "-"],
      "'--file -' and '--input -' cannot both read standard input"),
    .usage(
      "profile", ["--file", "a.json", "--url", "http://h/"],
      "'--file' and '--url' cannot be used together"),
    .usage(
      "profile", ["--fail", "x", "--file", "a.json"],
      "'--fail' only applies to the demo API, not to '--file'"),
    .usage(
      "profile", ["--url", "ftp://example.com/"],
      "unsupported URL scheme 'ftp' in 'ftp://example.com/' (use http or https) for '--url'"),
    .usage(
      "profile", ["--url", "mailto://x"],
      "unsupported URL scheme 'mailto' in 'mailto://x' (use http or https) for '--url'"),
    .usage(
      "profile", ["--url", "http://me:secret@example.com/"],
      "credentials in URLs are not supported: 'http://<redacted>@example.com/' (send them with "
        + "--header 'Authorization: …') for '--url'"),
    .usage("profile", ["--url", "http://"], "invalid URL 'http://' for '--url' \(urlForms)"),
    .usage(
      "profile", ["--url", "http:///path"], "invalid URL 'http:///path' for '--url' \(urlForms)"),
    .usage(
      "profile", ["--url", "example.com"], "invalid URL 'example.com' for '--url' \(urlForms)"),
    .usage(
      "profile", ["--url", "http://exa mple.com/"],
      "invalid URL 'http://exa mple.com/' for '--url' \(urlForms)"),
    .usage(
      "profile", ["--url", "http://host:99999/"],
      "invalid URL 'http://host:99999/' for '--url' \(urlForms)"),
    .usage(
      "profile", ["--url", "http://127.0.0.1:1/", "--clock", "virtual"],
      "'--url' cannot be used with '--clock virtual': real processes do not run on virtual time"),
    .usage(
      "profile", ["--exec", "true", "--clock", "virtual"],
      "'--exec' cannot be used with '--clock virtual': real processes do not run on virtual time"),
    .usage(
      "profile", ["--exec", "true", "--url", "http://h/"],
      "'--url' and '--exec' cannot be used together"),
    .usage(
      "profile", ["--header", "Accept: x"], "'--header' only applies to '--url'"),
    .usage(
      "profile", ["--url", "http://h/", "--header", "no colon"],
      "invalid header (expected 'Name: value'; it is not shown, as it may hold a secret)"),
    .usage("profile", ["--exec", " "], "empty command for '--exec'"),
  ]

  private static let profileFiles: [BadInputCase] = [
    .badFile(
      "profile", ["--file", "{tmp}/missing.json"],
      "cannot open '{tmp}/missing.json' for --file: No such file or directory"),
    .badFile("profile", ["--file", "{tmp}"], "cannot read '{tmp}' for --file: it is a directory"),
    .badFile(
      "profile", ["--file", "{tmp}/secret.json"],
      "cannot open '{tmp}/secret.json' for --file: Permission denied", unreadable: ["secret.json"]),
    .badFile(
      "profile", ["--input", "{tmp}/missing.txt"],
      "cannot open '{tmp}/missing.txt' for --input: No such file or directory"),
    .badFile(
      "profile", ["--input", "{tmp}"], "cannot read '{tmp}' for --input: it is a directory"),
    .badFile(
      "profile", ["--input", "{tmp}/secret.txt"],
      "cannot open '{tmp}/secret.txt' for --input: Permission denied", unreadable: ["secret.txt"]),
    .badFile("profile", ["--file", "/dev/zero"], "'/dev/zero' for --file is larger than 1 MiB"),
    .badFile(
      "profile", ["--input", "-"], "cannot read '-' for --input: it is a directory", stdin: "."),
    .badFile(
      "profile", ["--file", "-"], "cannot read '-' for --file: it is a directory", stdin: "."),
    .badFile(
      "profile", ["--file", "-"], "'-' is not valid JSON: unexpected end of input at byte 0"),
    json("empty", "", "'{tmp}/empty.json' is not valid JSON: unexpected end of input at byte 0"),
    json(
      "duplicate-key", #"{"name":"A","name":"B"}"#,
      #"'{tmp}/duplicate-key.json': profile JSON has the key "name" twice"#),
    json(
      "spaces", " \n\t", "'{tmp}/spaces.json' is not valid JSON: unexpected end of input at byte 3"),
    json(
      "trailing-comma", #"{"name":"Taylor",}"#,
      "'{tmp}/trailing-comma.json' is not valid JSON: expected a string key at byte 17"),
    json(
      "single-quotes", "{'name':'Taylor'}",
      "'{tmp}/single-quotes.json' is not valid JSON: expected a string key at byte 1"),
    json(
      "unterminated", #"{"name":"Taylor"#,
      "'{tmp}/unterminated.json' is not valid JSON: unterminated string at byte 15"),
    json(
      "two-documents", #"{"name":"a"}{"name":"b"}"#,
      "'{tmp}/two-documents.json' is not valid JSON: unexpected content after JSON at byte 12"),
    json(
      "nan", #"{"name":"x","n":NaN}"#,
      "'{tmp}/nan.json' is not valid JSON: unexpected character at byte 16"),
    json(
      "huge-number", #"{"name":"x","n":1e400}"#,
      "'{tmp}/huge-number.json' is not valid JSON: number out of range at byte 21"),
    json(
      "lone-surrogate", #"{"name":"\ud800"}"#,
      "'{tmp}/lone-surrogate.json' is not valid JSON: unpaired surrogate at byte 15"),
    json(
      "array", #"[{"name":"Taylor"}]"#,
      "'{tmp}/array.json': profile JSON must be an object, with at least a string \"name\""),
    json(
      "null", "null",
      "'{tmp}/null.json': profile JSON must be an object, with at least a string \"name\""),
    json(
      "number-name", #"{"name":42}"#,
      "'{tmp}/number-name.json': profile JSON has no string \"name\" field"),
    json(
      "no-name", #"{"city":"Lisbon"}"#,
      "'{tmp}/no-name.json': profile JSON has no string \"name\" field"),
    json(
      "deep", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
      "'{tmp}/deep.json' is not valid JSON: nesting deeper than 64 at byte 64"),
    json(
      "bom", Array("\u{FEFF}{\"name\":\"x\"}".utf8),
      "'{tmp}/bom.json' is not valid JSON: unexpected character at byte 0"),
    json(
      "latin1", Array(#"{"name":"Jos"#.utf8) + [0xE9, 0x22, 0x7D],
      "'{tmp}/latin1.json' is not valid JSON: invalid UTF-8 in string at byte 12"),
    json(
      "binary", (0...255).map(UInt8.init),
      "'{tmp}/binary.json' is not valid JSON: unexpected character at byte 0"),
    json(
      "huge",
      Array(#"{"name":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 1_100_000)
        + Array(#""}"#.utf8), "'{tmp}/huge.json' for --file is larger than 1 MiB"),
  ]

  private static let profileLines: [BadInputCase] = [
    .badLine("profile", Array("jump".utf8), "unknown action 'jump' \(actions)"),
    .badLine("profile", Array("load now".utf8), "unknown action 'load now' \(actions)"),
    .badLine("profile", Array("+1x load".utf8), "invalid time prefix '+1x' \(prefixForms)"),
    .badLine("profile", Array("+-1s load".utf8), "invalid time prefix '+-1s' \(prefixForms)"),
    .badLine("profile", Array("@1.5.5s load".utf8), "invalid time prefix '@1.5.5s' \(prefixForms)"),
    .badLine("profile", Array("+300ms".utf8), "nothing after the time prefix '+300ms'"),
    .badLine(
      "profile", Array("+9223372036854775807s load".utf8),
      "invalid time prefix '+9223372036854775807s' \(prefixForms)"),
    .badLine("profile", [0xFF, 0xFE, 0x20, 0x6C], "not valid UTF-8"),
    .badLine("profile", [0xFF, 0xFE, 0x20, 0x6C], "not valid UTF-8", viaStdin: true),
    .badLine(
      "profile", [0x00, 0x01, 0x1B, 0x5B, 0x32, 0x4A],
      #"unknown action '\0\u{1}\u{1B}[2J' "# + actions),
    .badLine("profile", Array("lo\rad".utf8), #"unknown action 'lo\rad' "# + actions),
    .badLine(
      "profile", Array(repeating: UInt8(ascii: "x"), count: 70_000), "line longer than 65536 bytes"),
    .badLine(
      "profile", Array(repeating: UInt8(ascii: "x"), count: 70_000), "line longer than 65536 bytes",
      viaStdin: true),
  ]

  /// `search` arrived on main after this table was written: one row of each kind shows the way.
  private static let search: [BadInputCase] = [
    .usage("search", ["--limit", "0", "q"], "invalid value '0' for '--limit' (must be 1 or more)"),
    .usage(
      "search", ["--exec", "cat", "--timeout", "0", "q"],
      "invalid value '0' for '--timeout' (must be more than 0)"),
    .badFile(
      "search", ["--corpus", "{tmp}", "q"], "cannot read '{tmp}' for --corpus: it is a directory"),
    .badLine("search", Array("+1x swift".utf8), "invalid time prefix '+1x' \(prefixForms)"),
    .usage(
      "search", ["--type", String(repeating: "a", count: 1_001)],
      "'--type' types at most 1000 characters, one keystroke each (use '--input FILE' for "
        + "longer queries)"),
  ]

  /// A `--file` profile that cannot be used.
  private static func json(_ name: String, _ text: String, _ message: String) -> BadInputCase {
    json(name, Array(text.utf8), message)
  }

  private static func json(_ name: String, _ bytes: [UInt8], _ message: String) -> BadInputCase {
    .badFile("profile", ["--file", "{tmp}/\(name).json"], message, files: ["\(name).json": bytes])
  }
}
