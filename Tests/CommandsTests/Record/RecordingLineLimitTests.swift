import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// A recording's lines are at most `RunRecorder.maxLineBytes`: a replay refuses a longer one
/// without holding it whole, a run stops its recording before one, and a divergence report
/// quotes long values shortened.
@Suite struct RecordingLineLimitTests {
  private static let header =
    #"{"loadctl_recording":2,"loadctl_version":"0","command":"counter","arguments":[],"#
    + #""clock":"virtual","started_at":"Z"}"#

  /// `{"t":0,"closing":true}` padded with spaces to `length` bytes.
  private static func closingLine(length: Int) -> String {
    let line = #"{"t":0,"closing":true"#
    return line + String(repeating: " ", count: length - line.utf8.count - 1) + "}"
  }

  @Test func aLineOfTheLimitIsReadAndALongerOneIsRefused() throws {
    let limit = RunRecorder.maxLineBytes
    let fits = Self.header + "\n" + Self.closingLine(length: limit) + "\n"
    let read = try Recording.parse(Array(fits.utf8), path: "r.jsonl")
    #expect(read.entries.count == 1)
    #expect(read.lastLine == 2)

    let over = Self.header + "\n" + Self.closingLine(length: limit + 1) + "\n"
    let problem = #expect(throws: Recording.Problem.self) {
      _ = try Recording.parse(Array(over.utf8), path: "r.jsonl")
    }
    #expect(
      problem?.message
        == "recording 'r.jsonl' line 2: longer than 16 MiB: not a line loadctl wrote")
  }

  /// A line that never ends (a header field of absurd size, say) is refused once it grows past
  /// the limit: no more than the limit and a chunk is read (it was read whole, then parsed).
  @Test(arguments: [1, 2])
  func aLineThatNeverEndsIsRefusedAfterTheLimit(line: Int) throws {
    let start = Array(((line == 2 ? Self.header + "\n" : "") + #"{"started_at":""#).utf8)
    var given = 0
    let problem = #expect(throws: Recording.Problem.self) {
      _ = try Recording.parse(path: "r.jsonl") { buffer in
        // An end far past the limit, so that a reader without one fails instead of filling
        // memory.
        guard given < 4 * RunRecorder.maxLineBytes else { return 0 }
        let head = max(0, min(buffer.count, start.count - given))
        for index in 0..<head { buffer[index] = start[given + index] }
        buffer.baseAddress?.advanced(by: head).initializeMemory(
          as: UInt8.self, repeating: UInt8(ascii: "A"), count: buffer.count - head)
        given += buffer.count
        return buffer.count
      }
    }
    #expect(
      problem?.message
        == "recording 'r.jsonl' line \(line): longer than 16 MiB: not a line loadctl wrote")
    #expect(given <= RunRecorder.maxLineBytes + start.count + 2 * (1 << 16))
  }

  /// A run does not write a line a replay would refuse: its recording stops before it, and the
  /// run says why (74), naming the line.
  @Test func aRunStopsItsRecordingBeforeALineTooLong() throws {
    let directory = NSTemporaryDirectory() + "loadctl-line-limit-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/run.jsonl"
    let recorder = RunRecorder(path: path, fd: try RunRecorder.openFile(path: path).get()) {
      .zero
    }
    recorder.header([("command", "counter")])
    recorder.step([("input", .object([("action", "increment")]))]) {}
    let long = String(repeating: "A", count: RunRecorder.maxLineBytes)
    recorder.step([("input", .object([("action", .string(long))]))]) {}
    recorder.step([("input", .object([("action", "increment")]))]) {}
    #expect(recorder.hasFailed)
    recorder.end(.exit(0))
    #expect(
      recorder.finish()
        == "cannot write recording '\(path)': line 3 would be longer than 16 MiB, more than a "
        + "replay reads; the recording stops before it")
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.last == #"{"t":0,"input":{"action":"increment"}}"#)
  }

  /// A divergence over a long value quotes both events and the value shortened, saying how much
  /// was left out (the report held the value three times over).
  @Test func aDivergenceReportShortensLongValues() {
    let long = String(repeating: "A", count: 1_000_000)
    let recorded = #"{"seq":2,"event":"tick","x":"\#(long)","n":1}"#
    let replayed = #"{"seq":2,"event":"tick","n":2}"#
    let divergence = ReplaySession.Divergence(
      time: .zero, number: 2, recorded: Recording.Event(bytes: Array(recorded.utf8), line: 3),
      replayed: Array(replayed.utf8), before: [Array(recorded.utf8)], ending: nil)
    let report = ReplaySession.report(divergence, path: "r.jsonl")
    #expect(report.utf8.count < 4000, "\(report.prefix(4000))")
    let lines = report.split(separator: "\n")
    #expect(lines.count == 6)
    #expect(lines[1].hasPrefix(#"  recorded: {"seq":2,"event":"tick","x":"AAAA"#))
    #expect(lines[1].hasSuffix("… (\(recorded.utf8.count - ReplaySession.eventLimit) more bytes)"))
    #expect(lines[2] == "  replayed: \(replayed)")
    #expect(lines[3].hasPrefix(#"  differs:  x: "AAAA"#))
    #expect(lines[3].hasSuffix(" more bytes) → (absent), n: 1 → 2"))
    #expect(lines[5].hasSuffix("more bytes)"))
  }

  @Test(arguments: [
    ("short", 200, "short"),
    (
      String(repeating: "é", count: 300), 200,
      String(repeating: "é", count: 200) + "… (200 more bytes)"
    ),
  ])
  func aTextIsShortenedAfterItsLimit(text: String, limit: Int, shortened: String) {
    #expect(text.shortened(to: limit) == shortened)
  }
}
