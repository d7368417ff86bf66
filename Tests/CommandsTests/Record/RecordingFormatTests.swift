import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Format 2: an event is recorded without the members a replay knows, and read back whole.
@Suite struct RecordingFormatTests {
  /// A recorder and an output printing `--json` into two files, on a clock the test sets.
  private final class Run: Sendable {
    let directory = NSTemporaryDirectory() + "loadctl-format-\(UUID().uuidString)"
    let now = Locked(Duration.zero)
    let recorder: RunRecorder
    let output: EventOutput
    let stdoutFD: Int32

    init() throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let fd = try RunRecorder.openFile(path: directory + "/run.jsonl").get()
      let now = self.now
      recorder = RunRecorder(path: directory + "/run.jsonl", fd: fd) { now.withLock { $0 } }
      stdoutFD = open(directory + "/stdout", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      output = EventOutput(
        command: "counter", json: true, quiet: false, style: Style(enabled: false),
        writer: OutputWriter(fileDescriptor: stdoutFD), elapsed: recorder.elapsed,
        lines: { [recorder] in recorder.event($0) })
    }

    deinit {
      close(stdoutFD)
      try? FileManager.default.removeItem(atPath: directory)
    }

    func lines(_ name: String) throws -> [String] {
      try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        .split(separator: "\n").map(String.init)
    }

    /// The recording read back as a replay reads it, under a format-2 header of its own (the
    /// recorder's header here holds only `command`).
    func readBack() throws -> Recording {
      let header =
        #"{"loadctl_recording":2,"loadctl_version":"0","command":"counter","arguments":[],"#
        + #""clock":"virtual","started_at":"Z"}"#
      let recorded = try lines("run.jsonl").dropFirst()
      let bytes = Array(([header] + recorded).map { $0 + "\n" }.joined().utf8)
      return try Recording.parse(bytes, path: "run.jsonl")
    }
  }

  @Test func anEventLeavesOutWhatAReplayKnowsAndReadsBackAsPrinted() throws {
    let run = try Run()
    run.recorder.header([("command", "counter")])
    run.output.emit("start", [("n", 1)], text: nil)
    run.now.withLock { $0 = .microseconds(1500) }
    run.recorder.step([("input", .object([("action", "increment")]))]) {
      run.output.emit("transition", [("to", .object([("count", 1)]))], text: nil)
    }
    // Printed outside a step: the clock's time, not the happening's.
    run.now.withLock { $0 = .microseconds(2250) }
    run.output.emit("late", text: nil)
    run.recorder.end(.exit(0))
    #expect(run.recorder.finish() == nil)
    run.output.flush()

    let recorded = try run.lines("run.jsonl")
    #expect(
      Array(recorded.dropFirst()) == [
        #"{"out":{"event":"start","n":1}}"#,
        #"{"t":1500000,"input":{"action":"increment"}}"#,
        #"{"out":{"event":"transition","to":{"count":1}}}"#,
        #"{"out":{"event":"late"},"elapsed_ms":2.25}"#,
        #"{"end":{"exit":0}}"#,
      ])
    let printed = try run.lines("stdout")
    #expect(
      printed == [
        #"{"seq":1,"elapsed_ms":0,"command":"counter","event":"start","n":1}"#,
        #"{"seq":2,"elapsed_ms":1.5,"command":"counter","event":"transition","to":{"count":1}}"#,
        #"{"seq":3,"elapsed_ms":2.25,"command":"counter","event":"late"}"#,
      ])
    let read = try run.readBack()
    #expect(read.events.map { String(decoding: $0.bytes, as: UTF8.self) } == printed)
    #expect(read.events.map(\.line) == [2, 4, 5])
  }

  /// A step recorded while a step is applied on the same thread (stdout found closed by a flush
  /// inside a step stops the run) is recorded inside it, without taking the step lock twice; the
  /// outer step's later events then carry their own time.
  @Test func aStepInsideAStepIsRecordedWhereItHappens() throws {
    let run = try Run()
    run.recorder.header([("command", "counter")])
    run.now.withLock { $0 = .milliseconds(1) }
    run.recorder.step([("input", .object([("action", "increment")]))]) {
      run.output.emit("first", text: nil)
      run.now.withLock { $0 = .milliseconds(3) }
      run.recorder.shutdown(.brokenPipe)
      run.output.emit("second", text: nil)
    }
    run.recorder.end(.brokenPipe)
    #expect(run.recorder.finish() == nil)
    run.output.flush()

    let recorded = try run.lines("run.jsonl")
    #expect(
      Array(recorded.dropFirst()) == [
        #"{"t":1000000,"input":{"action":"increment"}}"#,
        #"{"out":{"event":"first"}}"#,
        #"{"t":3000000,"shutdown":"broken_pipe"}"#,
        #"{"out":{"event":"second"},"elapsed_ms":1}"#,
        #"{"end":{"signal":"SIGPIPE","exit":141}}"#,
      ])
    let read = try run.readBack()
    #expect(
      read.events.map { String(decoding: $0.bytes, as: UTF8.self) } == (try run.lines("stdout")))
  }

  /// A format-1 recording holds every event whole, and reads back as it is.
  @Test func aFormatOneEventIsReadAsItIs() throws {
    let text = """
      {"loadctl_recording":1,"loadctl_version":"0","command":"counter","arguments":[],"clock":"virtual","started_at":"Z"}
      {"t":5000000,"closing":true}
      {"out":{"seq":1,"elapsed_ms":1,"command":"counter","event":"end"}}

      """
    let read = try Recording.parse(Array(text.utf8), path: "old.jsonl")
    #expect(read.header.format == 1)
    #expect(
      read.events.map { String(decoding: $0.bytes, as: UTF8.self) } == [
        #"{"seq":1,"elapsed_ms":1,"command":"counter","event":"end"}"#
      ])
  }

  @Test(arguments: [
    (
      #"{"out":{"seq":1,"event":"end"}}"#,
      "line 2: 'out' holds 'seq', which a format-2 recording leaves out"
    ),
    (
      #"{"out":{"event":"end"},"elapsed_ms":"1"}"#,
      "line 2: 'elapsed_ms' is a string, not a number"
    ),
    (
      #"{"out":{"event":"end"},"extra":1}"#,
      "line 2: an 'out' line holds nothing but 'out' and 'elapsed_ms'"
    ),
    (#"{"out":[1]}"#, "line 2: 'out' is not an event object"),
  ])
  func aFormatTwoOutLineHoldsOnlyWhatItMay(line: String, problem: String) {
    let text =
      #"{"loadctl_recording":2,"loadctl_version":"0","command":"counter","arguments":[],"#
      + #""clock":"virtual","started_at":"Z"}"# + "\n" + line + "\n"
    #expect(throws: Recording.Problem.self) {
      try Recording.parse(Array(text.utf8), path: "bad.jsonl")
    }
    do {
      _ = try Recording.parse(Array(text.utf8), path: "bad.jsonl")
    } catch {
      #expect(error.message == "recording 'bad.jsonl' \(problem)")
    }
  }
}
