import Foundation
import Testing

/// Golden transcripts: every case replays in virtual time and must print exactly what is recorded.
///
/// A case is a folder under `Tests/Transcripts/`: `command` (one argument per line, without
/// `loadctl`), an optional `stdin`, and the recorded `stdout.txt` (text), `stdout.jsonl` (`--json`)
/// and `status`. Each is run with `--clock virtual`, so timestamps are virtual and the output is
/// the same bytes every run. `LOADCTL_RECORD=1 swift test --filter TranscriptTests` re-records.
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

  /// Examples in README and docs marked `<!-- transcript: NAME -->` must be the transcript's output.
  @Test(arguments: ["README.md", "docs/counter.md", "docs/timer.md", "docs/search.md"])
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
    expectedText = read("stdout.txt")
    expectedJSON = read("stdout.jsonl")
    expectedStatus = read("status").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The command line as README shows it (virtual time, so the timestamps are exact).
  var commandLine: String {
    let shown = (arguments + ["--clock", "virtual"])
      .map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    return stdin == nil ? "loadctl \(shown)" : "loadctl \(shown) < script.txt"
  }

  /// What README shows: the script (if any), `$ loadctl …`, then the text output.
  var readmeBlock: String {
    var block = ""
    if let stdin { block += "$ cat script.txt\n" + stdin }
    block += "$ \(commandLine)\n" + expectedText
    return block.hasSuffix("\n") ? String(block.dropLast()) : block
  }

  func run(json: Bool) async throws -> (stdout: String, status: String) {
    var args = arguments + ["--clock", "virtual", "--no-color"]
    if json { args.append("--json") }
    let outcome = try await LoadctlProcess.run(
      args, stdin: stdin.map { .text($0) } ?? .null, unsetting: ["COLUMNS", "NO_COLOR"])
    let text = outcome.stdout.map { $0 + "\n" }.joined()
    return (text, "\(outcome.termination)")
  }

  func record(text: (stdout: String, status: String), json: (stdout: String, status: String)) throws
  {
    try text.stdout.write(
      to: folder.appendingPathComponent("stdout.txt"), atomically: true, encoding: .utf8)
    try json.stdout.write(
      to: folder.appendingPathComponent("stdout.jsonl"), atomically: true, encoding: .utf8)
    try (text.status + "\n").write(
      to: folder.appendingPathComponent("status"), atomically: true, encoding: .utf8)
  }
}
