import Foundation
import Testing

/// `search` at a real (pseudo-)terminal with no query: the picker drawn on the terminal, the
/// pick alone on stdout (a file here, as `$(…)` makes it a pipe), and the terminal as it was.
@Suite(.processSlots) struct PickerEndToEndTests {
  /// The rows an `--exec` command prints for any query: those of a list that hold it, then
  /// the query itself.
  static let words = "printf '%s\\n' queue quick quiet 'sw query' | grep -F -- {query}"

  struct Run {
    let terminal: InteractiveTests.Result
    let stdout: String
  }

  /// Runs `loadctl ARGUMENTS` on a terminal, its stdout sent to a file.
  static func pick(
    _ steps: [[String]], _ arguments: [String], environment: [String: String] = [:]
  ) async throws -> Run {
    let file = NSTemporaryDirectory() + "loadctl-pick-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: file) }
    let binary = try BinaryLocator.locate()
    let terminal = try await InteractiveTests.runOnTerminal(
      steps, ["-c", "exec \"$0\" \"$@\" > \"$LOADCTL_PICK_FILE\"", binary] + arguments,
      environment: environment.merging(["LOADCTL_PICK_FILE": file]) { $1 }, executable: "/bin/sh")
    let stdout = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    return Run(terminal: terminal, stdout: stdout)
  }

  /// The view's row `row` (1-based) as last painted: what follows its cursor placement.
  static func lastRow(_ row: Int, in output: String) -> String? {
    guard let range = output.range(of: "\u{1B}[\(row);1H", options: .backwards) else { return nil }
    let rest = output[range.upperBound...]
    return String(rest.prefix { $0 != "\u{1B}" })
  }

  /// A query that starts with `q` is typed (it quit the run), edited with Backspace, Ctrl-W,
  /// Ctrl-A and typing at the cursor, the selection moved with Down, and Enter prints the
  /// selected row alone on stdout; the view was on the terminal, in the alternate screen.
  @Test func typeEditMoveAndPick() async throws {
    let run = try await Self.pick(
      [
        ["wait", "type to search"], ["send", "q"], ["wait", "> q\u{1B}[K\u{1B}[2;1H  4 of 4"],
        ["send", "ux"], ["wait", "no results"], ["send", "\u{7F}"],
        ["wait", "> qu\u{1B}[K\u{1B}[2;1H  4 of 4"], ["send", "\u{17}"],
        ["wait", "> \u{1B}[K\u{1B}[2;1H  type to search"], ["send", "ui"],
        ["wait", "> ui\u{1B}[K\u{1B}[2;1H  2 of 2"], ["send", "\u{01}"], ["send", "q"],
        ["wait", "> qui\u{1B}[K\u{1B}[2;1H  2 of 2"], ["send", "\u{1B}[B"],
        ["wait", "▌ quiet"], ["send", "\r"],
      ], ["search", "--no-color", "--debounce", "0", "--exec", Self.words])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.exit == 0, "\(run.terminal.output.debugDescription)")
    #expect(run.terminal.termiosRestored)
    #expect(run.stdout == "quiet\n")
    let output = run.terminal.output
    #expect(output.contains("\u{1B}[1;4H"), "the cursor after q, before ui")
    #expect(output.hasPrefix("\u{1B}[?1049h"), "the alternate screen first")
    #expect(output.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"), "\(output.suffix(80).debugDescription)")
  }

  /// Esc, Ctrl-G and Ctrl-C leave with nothing on stdout and status 130 (Ctrl-C by SIGINT, as
  /// a shell shows it), the screen and the terminal as they were.
  @Test(arguments: ["\u{1B}", "\u{07}", "\u{03}"])
  func leavingPrintsNothing(key: String) async throws {
    let run = try await Self.pick(
      [["wait", "type to search"], ["send", "qu"], ["wait", "4 of 4"], ["send", key]],
      [
        "search", "--no-color", "--debounce", "0", "--exec",
        "printf '%s\\n' queue quick quiet {query}",
      ])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    if key == "\u{03}" {
      #expect(run.terminal.signal == SIGINT)
    } else {
      #expect(run.terminal.exit == 130)
    }
    #expect(run.stdout == "")
    #expect(run.terminal.termiosRestored)
    #expect(run.terminal.output.contains("\u{1B}[?1049l"))
  }

  /// SIGTERM and SIGHUP take the view down as every other end does.
  @Test(arguments: ["TERM", "HUP"])
  func aSignalRestoresTheScreen(signal: String) async throws {
    let run = try await Self.pick(
      [["wait", "type to search"], ["send", "s"], ["wait", "searching"], ["signal", signal]],
      ["search", "--no-color", "--exec", ": {query}; exec sleep 600"])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.signal == (signal == "TERM" ? SIGTERM : SIGHUP))
    #expect(run.stdout == "")
    #expect(run.terminal.termiosRestored)
    #expect(run.terminal.output.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
  }

  /// Ctrl-Z shows the shell's screen again (the view is left, the terminal's modes put back);
  /// `fg` brings the view back, repainted whole, with what was typed, and keys go on.
  @Test func ctrlZAndFgTakeTheViewDownAndUp() async throws {
    let result = try await JobControlTests.runAsJob(
      [
        ["wait", "type to search"], ["send", "sw"], ["wait", "> sw"], ["send", "\u{1A}"],
        ["status", "stopped"], ["wait", "\u{1B}[?1049l"], ["fg"], ["status", "continued"],
        ["wait", "\u{1B}[?1049h"], ["wait", "> sw"], ["send", "i"], ["wait", "> swi"],
        ["send", "\u{1B}"],
      ], background: false, ["search", "--no-color", "--debounce", "600s"])
    #expect(result.error == nil, "\(result.error ?? "")")
    #expect(result.statuses.first == "stopped \(SIGTSTP)", "\(result.statuses)")
    #expect(result.exit == 130)
    #expect(result.termiosRestored)
    #expect(result.output.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
  }

  /// `--multi`: Tab marks rows (and moves past them), Shift-Tab unmarks; Enter prints the
  /// marked rows, a line each, after `--print-query`'s query.
  @Test func multiMarksRowsAndPrintsThemWithTheQuery() async throws {
    let run = try await Self.pick(
      [
        ["wait", "type to search"], ["send", "qu"], ["wait", "4 of 4"], ["send", "\t"],
        ["wait", "\u{1B}[3;1H • queue"], ["send", "\t\t"], ["wait", "\u{1B}[5;1H • quiet"],
        ["send", "\u{1B}[Z"], ["send", "\u{1B}[Z"],
        ["wait", "\u{1B}[4;1H▌• quick\u{1B}[K\u{1B}[5;1H   quiet"], ["send", "\r"],
      ],
      ["search", "--no-color", "--debounce", "0", "--multi", "--print-query", "--exec", Self.words])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.exit == 0, "\(run.terminal.output.debugDescription)")
    #expect(run.stdout == "qu\nqueue\nquick\n", "\(run.stdout.debugDescription)")
  }

  /// A resize (SIGWINCH) repaints the view at the new width: the legend is cut to it.
  @Test func aResizeRepaintsAtTheNewWidth() async throws {
    let run = try await Self.pick(
      [
        ["wait", "type to search"], ["resize", "30"], ["wait", "Enter pick · Esc quit · ↑↓ P…"],
        ["send", "\u{1B}"],
      ], ["search", "--no-color", "--exec", "echo {query}"])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.exit == 130)
    #expect(run.terminal.termiosRestored)
  }

  /// grep's exit status 1 with nothing printed is no results, not a failure; Enter with
  /// nothing to pick prints nothing and ends 1.
  @Test func grepFindingNothingIsNoResults() async throws {
    let run = try await Self.pick(
      [["wait", "type to search"], ["send", "xvz"], ["wait", "no results"], ["send", "\r"]],
      ["search", "--no-color", "--debounce", "0", "--exec", Self.words])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.exit == 1)
    #expect(run.stdout == "")
    #expect(!run.terminal.output.contains("failed"))
  }

  /// With `--json` (stdout not the terminal) the view is drawn and the events go to stdout,
  /// the pick among them as a `pick` event before `end`.
  @Test func withJSONThePickIsAnEvent() async throws {
    let run = try await Self.pick(
      [["wait", "type to search"], ["send", "qui"], ["wait", "2 of 2"], ["send", "\r"]],
      ["search", "--json", "--debounce", "0", "--exec", Self.words])
    #expect(run.terminal.error == nil, "\(run.terminal.error ?? "")")
    #expect(run.terminal.exit == 0)
    let events = try await SearchEvents.checked(run.stdout.split(separator: "\n").map(String.init))
    #expect(events.events.suffix(2).map(\.event) == ["pick", "end"])
    let pick = try #require(events.first(event: "pick"))
    #expect(pick["items"] as? [String] == ["quick"])
    #expect(pick.string("query") == "qui")
    #expect(events.first(action: "query_changed")?.integer("cursor") == 3)
    #expect(events.end?.integer("exit_code") == 0)
  }

  /// A picker session records like any run: its replay prints the pick on stdout (and, with
  /// `--json`, the `pick` event), `--check` says 0 and prints only its verdict, and the
  /// recording is valid.
  @Test func aPickerSessionRecordsAndReplaysThePick() async throws {
    let recording = NSTemporaryDirectory() + "loadctl-pick-\(UUID().uuidString).jsonl"
    defer { try? FileManager.default.removeItem(atPath: recording) }
    let run = try await Self.pick(
      [
        ["wait", "type to search"], ["send", "qu"], ["wait", "4 of 4"], ["send", "\u{1B}[B"],
        ["wait", "▌ quick"], ["send", "\r"],
      ],
      ["search", "--no-color", "--record", recording, "--debounce", "0", "--exec", Self.words])
    #expect(run.terminal.exit == 0, "\(run.terminal.error ?? "")")
    #expect(run.stdout == "quick\n")
    let replay = try await LoadctlProcess.run(["replay", recording])
    #expect(replay.termination == .exited(0))
    #expect(replay.stdout == ["quick"], "\(replay.stdout)")
    let check = try await LoadctlProcess.run(["replay", "--check", recording])
    #expect(check.termination == .exited(0))
    #expect(check.stdout.count == 1, "\(check.stdout)")
    #expect(check.stdout.first?.hasPrefix("replay matches") == true)
    let json = try await LoadctlProcess.run(["replay", "--json", recording])
    let events = try JSONLines.parse(json.stdout)
    #expect(events.first { $0.event == "pick" }?["items"] as? [String] == ["quick"])
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.repositoryRoot()
        .appendingPathComponent("docs/schema/recording.schema.json")
      let lines = try String(contentsOfFile: recording, encoding: .utf8)
        .split(separator: "\n").map(String.init)
      #expect(try await SchemaValidator.failures(of: lines, schema: schema) == [])
    }
  }

  /// The screen README.md shows is what the picker draws: typing `task` and Down in
  /// `loadctl search --limit 5` on a terminal of 60×10, the last frame read row by row.
  @Test func theReadmeScreenIsWhatThePickerDraws() async throws {
    let readme = try String(
      contentsOf: SchemaValidator.repositoryRoot().appendingPathComponent("README.md"),
      encoding: .utf8)
    let marker = try #require(
      readme.range(of: "<!-- picker-screen: search --limit 5 -->\n```text\n"))
    let block = try #require(readme[marker.upperBound...].range(of: "\n```\n"))
    let shown = String(readme[marker.upperBound..<block.lowerBound])
    let result = try await InteractiveTests.runOnTerminal(
      [
        ["wait", "type to search"], ["resize", "60", "10"], ["wait", "\u{1B}[10;1HEnter pick"],
        ["send", "task"], ["wait", "5 of 36"], ["send", "\u{1B}[B"], ["wait", "▌ TaskGroup"],
        ["send", "\u{1B}"],
      ], ["search", "--no-color", "--limit", "5"])
    #expect(result.error == nil, "\(result.error ?? "")")
    #expect(result.exit == 130)
    let output = result.output
    let frame = try #require(output.range(of: "\u{1B}[?25l", options: .backwards))
    let drawn = String(output[frame.lowerBound...])
    let rows = (1...10).map { Self.lastRow($0, in: drawn) ?? "" }
    #expect(rows.joined(separator: "\n") == shown)
  }
}
