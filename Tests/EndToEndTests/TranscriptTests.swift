import Foundation
import Testing

/// Golden transcripts: every case replays in virtual time and must print exactly what is recorded.
///
/// A case is a folder under `Tests/Transcripts/`: `command` (one argument per line, without
/// `loadctl`), an optional `stdin`, and the recorded `output.txt` (text mode: stdout and stderr as
/// one stream, in the order a terminal shows them), `stdout.jsonl` (`--json`) and `status`. Each
/// is run with `--clock virtual`, so timestamps are virtual and the output is the same bytes
/// every run. `LOADCTL_RECORD=1 swift test --filter TranscriptTests` re-records.
@Suite(.processSlots) struct TranscriptTests {
  static let root = SchemaValidator.repositoryRoot().appendingPathComponent("Tests/Transcripts")
  static let recording = ProcessInfo.processInfo.environment["LOADCTL_RECORD"] == "1"
  static let repeats = Int(ProcessInfo.processInfo.environment["LOADCTL_REPEAT"] ?? "") ?? 3

  static var cases: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted()
  }

  @Test(arguments: cases)
  func replaysExactly(name: String) async throws {
    let transcript = try Transcript(folder: Self.root.appendingPathComponent(name))
    let text = try await transcript.run(json: false)
    let json = try await transcript.run(json: true)
    if Self.recording {
      try transcript.record(text: text, json: json)
      return
    }
    #expect(text.stdout == transcript.expectedText, "text output of \(name)")
    #expect(json.stdout == transcript.expectedJSON, "JSON output of \(name)")
    #expect(!json.stdout.contains(#""event":"warning""#), "\(name) raises no lint")
    #expect(!text.stdout.contains("warning["), "\(name) raises no lint")
    #expect(text.status == transcript.expectedStatus, "status of \(name)")
    #expect(json.status == transcript.expectedStatus, "status of \(name) with --json")
    if SchemaValidator.isAvailable, let command = transcript.arguments.first {
      let lines = json.stdout.split(separator: "\n").map(String.init)
      #expect(
        try await SchemaValidator.failures(of: lines, schema: SchemaValidator.schema(for: command))
          == [])
    }
  }

  @Test(arguments: cases)
  func sameInputGivesTheSameBytesEveryRun(name: String) async throws {
    let transcript = try Transcript(folder: Self.root.appendingPathComponent(name))
    let first = try await transcript.run(json: true)
    for _ in 1..<max(Self.repeats, 2) {
      #expect(try await transcript.run(json: true).stdout == first.stdout)
    }
  }

  /// Every Markdown file that shows runs.
  static let documents: [String] = {
    let root = SchemaValidator.repositoryRoot()
    let docs = ["docs", "docs/events"].flatMap { folder in
      ((try? FileManager.default.contentsOfDirectory(
        atPath: root.appendingPathComponent(folder).path)) ?? [])
        .filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
    }
    return ["README.md"] + docs.sorted()
  }()

  /// Examples in README and docs marked `<!-- transcript: NAME -->` must be the transcript's
  /// output: stdout and stderr in order, then the exit status when it is not 0.
  @Test(arguments: documents)
  func documentedExamplesAreTranscripts(file: String) throws {
    let readme = try String(
      contentsOf: SchemaValidator.repositoryRoot().appendingPathComponent(file), encoding: .utf8)
    let marker = "<!-- transcript: "
    var checked = 0
    for chunk in readme.components(separatedBy: marker).dropFirst() {
      guard let end = chunk.range(of: " -->") else { continue }
      let name = String(chunk[..<end.lowerBound])
      let rest = chunk[end.upperBound...]
      guard let open = rest.range(of: "```sh\n"),
        let close = rest.range(of: "\n```", range: open.upperBound..<rest.endIndex)
      else {
        Issue.record("\(file): transcript \(name) has no ```sh block after its marker")
        continue
      }
      let block = String(rest[open.upperBound..<close.lowerBound])
      let transcript = try Transcript(folder: Self.root.appendingPathComponent(name))
      #expect(block == transcript.readmeBlock, "\(file): block for transcript \(name)")
      checked += 1
    }
    if file == "README.md" { #expect(checked >= 5, "README shows every flow from transcripts") }
  }

  /// A code block that shows a run (a `$ ` line, or a line of loadctl's text output) is either a
  /// transcript or a replay session, both checked by running them, or says right above it that it
  /// is illustrative (`_Illustrative: why_`: real time, a terminal, a network, a machine's
  /// figures), so a reader knows which examples are exact.
  @Test(arguments: documents)
  func everyShownRunIsCheckedOrMarkedIllustrative(file: String) throws {
    let text = try String(
      contentsOf: SchemaValidator.repositoryRoot().appendingPathComponent(file), encoding: .utf8)
    let unmarked = Self.unmarkedRuns(in: text).map { "\(file):\($0)" }
    #expect(
      unmarked == [],
      """
      blocks showing a run need <!-- transcript: NAME -->, <!-- replay: FILE --> or an \
      _Illustrative: …_ paragraph right above them: \(unmarked.joined(separator: ", "))
      """)
  }

  @Test func aBlockWithoutAMarkerIsFound() {
    let text = """
      Run it:

      ```console
      $ loadctl timer
        0.000s  timer  ▶ 00:00
      ```

      _Illustrative: real time,
      at a terminal._

      ```console
      $ loadctl ticker
        1.000s  ticker  #1  100.00
      ```

      ```sh
      loadctl profile
      ```

      ```sh
      $ loadctl counter + | tail -n 1
      ```

      ```
        0.000s  search  typed "s"  idle → searching "s"
      ```

      <!-- transcript: timer-ticks -->
      ```sh
      $ loadctl timer --ticks 3 --clock virtual
      ```
      """
    let runs = Self.shownRuns(in: text)
    #expect(runs.map(\.line) == [3, 11, 20, 24, 29])
    #expect(
      runs.map(\.before) == [
        "Run it:", "at a terminal._", "```", "```", "<!-- transcript: timer-ticks -->",
      ])
    #expect(runs[...1].map(\.paragraph) == ["Run it:", "_Illustrative: real time,"])
    #expect(Self.unmarkedRuns(in: text) == [3, 20, 24])
  }

  /// The first line numbers of the blocks in `text` that show a run without a marker.
  static func unmarkedRuns(in text: String) -> [Int] {
    shownRuns(in: text).filter { run in
      !run.before.hasPrefix("<!-- transcript: ") && !run.before.hasPrefix("<!-- replay: ")
        && !run.paragraph.hasPrefix("_Illustrative")
    }.map(\.line)
  }

  /// The fenced blocks that show a run: a command (`$ `) or a line of loadctl's text output
  /// (`  0.300s  search  …`), with their first line number, the nearest non-blank line above
  /// them, and the first line of that line's paragraph.
  static func shownRuns(in text: String) -> [(line: Int, before: String, paragraph: String)] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let isBlank = { (line: String) in line.trimmingCharacters(in: .whitespaces).isEmpty }
    let isOutput = { (line: String) in line.wholeMatch(of: /\s*\d+\.\d{3}s  \S.*/) != nil }
    var runs: [(line: Int, before: String, paragraph: String)] = []
    var index = 0
    while index < lines.count {
      guard lines[index].hasPrefix("```") else {
        index += 1
        continue
      }
      let start = index
      index += 1
      while index < lines.count, !lines[index].hasPrefix("```") { index += 1 }
      let body = lines[(start + 1)..<min(index, lines.count)]
      if body.contains(where: { $0.hasPrefix("$ ") || isOutput($0) }) {
        guard let last = lines[..<start].lastIndex(where: { !isBlank($0) }) else {
          runs.append((start + 1, "", ""))
          index += 1
          continue
        }
        var first = last
        while first > 0, !isBlank(lines[first - 1]) { first -= 1 }
        runs.append((start + 1, lines[last], lines[first]))
      }
      index += 1
    }
    return runs
  }
}

/// One recorded case: how to run it and what it printed.
struct Transcript {
  let folder: URL
  let arguments: [String]
  let stdin: String?
  let expectedText: String
  let expectedJSON: String
  let expectedStatus: String

  init(folder: URL) throws {
    self.folder = folder
    let command = try String(contentsOf: folder.appendingPathComponent("command"), encoding: .utf8)
    arguments = command.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    stdin = try? String(contentsOf: folder.appendingPathComponent("stdin"), encoding: .utf8)
    func read(_ file: String) -> String {
      (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
    }
    expectedText = read("output.txt")
    expectedJSON = read("stdout.jsonl")
    expectedStatus = read("status").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The command line as README shows it (virtual time, so the timestamps are exact).
  var commandLine: String {
    let shown = (arguments + ["--clock", "virtual"])
      .map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    return stdin == nil ? "loadctl \(shown)" : "loadctl \(shown) < script.txt"
  }

  /// What README shows: the script (if any), `$ loadctl …`, the text output (stdout and
  /// stderr), and `$ echo $?` with the status when it is not 0.
  var readmeBlock: String {
    var block = ""
    if let stdin { block += "$ cat script.txt\n" + stdin }
    block += "$ \(commandLine)\n" + expectedText
    if let status = shellStatus, status != 0 { block += "$ echo $?\n\(status)\n" }
    return block.hasSuffix("\n") ? String(block.dropLast()) : block
  }

  /// `$?` as a shell reports the recorded status (`exited(65)` → 65, `signaled(SIGINT)` → 130).
  var shellStatus: Int32? {
    if expectedStatus.hasPrefix("exited("), expectedStatus.hasSuffix(")") {
      return Int32(expectedStatus.dropFirst("exited(".count).dropLast())
    }
    let signals = ["SIGHUP": SIGHUP, "SIGINT": SIGINT, "SIGQUIT": SIGQUIT, "SIGTERM": SIGTERM]
    return signals.first { expectedStatus == "signaled(\($0.key))" }.map { 128 + $0.value }
  }

  /// Runs the case. In text mode stderr goes into the same pipe as stdout (`2>&1`), so the
  /// lines come out in the order a terminal would show them.
  func run(json: Bool) async throws -> (stdout: String, status: String) {
    var args = arguments + ["--clock", "virtual", "--no-color"]
    if json { args.append("--json") }
    let stdin: LoadctlProcess.Stdin = self.stdin.map { .text($0) } ?? .null
    let unsetting = ["COLUMNS", "NO_COLOR"]
    let outcome =
      json
      ? try await LoadctlProcess.run(args, stdin: stdin, unsetting: unsetting)
      : try await LoadctlProcess.run(
        executable: "/bin/sh",
        arguments: ["-c", #"exec "$0" "$@" 2>&1"#, try BinaryLocator.locate()] + args,
        stdin: stdin, unsetting: unsetting)
    let text = outcome.stdout.map { $0 + "\n" }.joined()
    return (text, "\(outcome.termination)")
  }

  func record(text: (stdout: String, status: String), json: (stdout: String, status: String)) throws
  {
    try text.stdout.write(
      to: folder.appendingPathComponent("output.txt"), atomically: true, encoding: .utf8)
    try json.stdout.write(
      to: folder.appendingPathComponent("stdout.jsonl"), atomically: true, encoding: .utf8)
    try (text.status + "\n").write(
      to: folder.appendingPathComponent("status"), atomically: true, encoding: .utf8)
  }
}
