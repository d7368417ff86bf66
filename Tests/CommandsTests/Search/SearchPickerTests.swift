import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// The picker: the reducer's selection, marks and pick, the keys that reach it in order, and the
/// view drawn from the state, escaped and cut to the width.
@Suite struct SearchPickerTests {
  private static let flow = SearchFlow(
    fetch: { request in SearchHits(items: [request.query], total: 1) }, clock: VirtualClock(),
    debounce: .seconds(600))

  private static func results(_ items: [String], query: String = "s") -> SearchState {
    var state = SearchState()
    state.query = query
    state.phase = .results(query: query, hits: SearchHits(items: items, total: items.count))
    return state
  }

  private static func apply(_ actions: [SearchAction], to state: SearchState) -> SearchState {
    var state = state
    for action in actions { _ = flow.reduce(&state, action) }
    return state
  }

  /// The selection stays within the results; Enter picks the selected row.
  @Test func movesStayWithinTheResultsAndEnterPicksTheSelectedRow() {
    let state = Self.results(["a", "b", "c"])
    #expect(Self.apply([.moved(by: 1), .moved(by: 1)], to: state).selected == 2)
    #expect(Self.apply([.moved(by: 10)], to: state).selected == 2)
    #expect(Self.apply([.moved(by: 1), .moved(by: -10)], to: state).selected == 0)
    #expect(Self.apply([.moved(by: 1), .picked], to: state).ending == .picked(["b"]))
  }

  /// Marks are kept by text, in the order made, and Enter prints them instead of the selection.
  @Test func marksAreWhatEnterPrints() {
    let state = Self.results(["a", "b", "c"])
    let marked = Self.apply([.marked(true), .marked(true)], to: state)
    #expect(marked.marked == ["a", "b"])
    #expect(marked.selected == 2)
    let unmarked = Self.apply([.moved(by: -1), .marked(false)], to: marked)
    #expect(unmarked.marked == ["a"])
    #expect(Self.apply([.picked], to: unmarked).ending == .picked(["a"]))
  }

  /// Nothing to pick: Enter ends with no rows (exit 1); Esc ends dismissed.
  @Test func enterWithNothingShownPicksNothingAndEscDismisses() {
    let state = Self.apply([.edited(SearchBox("sw"))], to: SearchState())
    #expect(state.phase == .debouncing(query: "sw"))
    #expect(Self.apply([.picked], to: state).ending == .picked([]))
    #expect(Self.apply([.dismissed], to: state).ending == .dismissed)
  }

  /// A new answer selects its first row again; moving the cursor alone changes no query.
  @Test func newResultsSelectTheFirstRowAndACursorMoveIsNoNewQuery() {
    var state = Self.apply([.moved(by: 2)], to: Self.results(["a", "b", "c"]))
    let revision = state.revision
    _ = Self.flow.reduce(&state, .edited(SearchBox("s", cursor: 0)))
    #expect(state.revision == revision && state.afterCursor == 1 && state.selected == 2)
    _ = Self.flow.reduce(&state, .edited(SearchBox("sw")))
    _ = Self.flow.reduce(&state, .debounceElapsed(query: "sw", revision: state.revision))
    _ = Self.flow.reduce(
      &state,
      .response(
        query: "sw", revision: state.revision,
        result: .success(SearchHits(items: ["x", "y"], total: 2))))
    #expect(state.selected == 0)
  }

  /// The keys of one read reach the flow in order: a step after edits delivers the edits' last
  /// action first, and Enter after them ends the keys once everything before it is delivered.
  @Test func stepsAndTheLastKeyKeepTheirPlaceInARead() async throws {
    let keys = try #require(Self.flow.keys)
    let state = Self.results(["a", "b"], query: "s")
    let (bursts, typing) = AsyncStream<[Key]>.makeStream()
    typing.yield([.left, .down, .character("x"), .enter])
    typing.finish()
    let quits = Locked(0)
    let input = KeyActions(
      bursts: bursts, mapper: FlowRunner.keyMapper(Self.flow, keys) { state },
      coalescing: keys.coalescing, quit: { quits.withLock { $0 += 1 } })
    var actions: [SearchAction] = []
    for await action in input { actions.append(action) }
    #expect(
      actions == [
        .edited(SearchBox("s", cursor: 0)), .moved(by: 1), .edited(SearchBox("xs", cursor: 1)),
        .picked,
      ])
    #expect(quits.withLock { $0 } == 1)
  }

  /// `--print-query` prints the query before the pick; a dismissed picker prints nothing.
  @Test func whatThePickerPrints() {
    let picker = SearchPicker(
      screen: nil, style: Style(enabled: false), multi: true, printQuery: true)
    var state = Self.apply([.marked(true), .marked(true), .picked], to: Self.results(["a", "b"]))
    picker.ended(state)
    #expect(picker.printed == "s\na\nb\n")
    state.ending = .dismissed
    picker.ended(state)
    #expect(picker.printed == nil)
  }

  private static func lines(
    _ state: SearchState, columns: Int = 40, rows: Int = 8, top: Int = 0,
    style: Style = Style(enabled: false), counts: SearchCounts = SearchCounts()
  ) -> [String] {
    var top = top
    return SearchPicker.lines(
      state, counts: counts, spinner: 0, columns: columns, rows: rows, top: &top, style: style,
      multi: false
    ).lines
  }

  /// The view: the query line, the phase with the requests counted, the rows with the
  /// selected one marked, and the legend last.
  @Test func theViewShowsTheQueryThePhaseTheRowsAndTheLegend() {
    var counts = SearchCounts()
    counts.started = 3
    counts.cancelled = 2
    let view = Self.lines(
      Self.apply([.moved(by: 1)], to: Self.results(["swift", "sweet"])), counts: counts)
    #expect(view.count == 8)
    #expect(view[0] == "> s")
    #expect(view[1] == "  2 of 2  [3 started · 2 cancelled]")
    #expect(view[2] == "  swift" && view[3] == "▌ sweet" && view[4] == "")
    #expect(view[7].hasPrefix("Enter pick · Esc quit"))
    var searching = SearchState()
    searching.query = "sw"
    searching.phase = .searching(query: "sw")
    #expect(Self.lines(searching)[1].hasPrefix("  ⠋ searching"))
    var failed = searching
    failed.phase = .failed(query: "sw", message: "command failed (exit status 2)")
    #expect(
      Self.lines(failed, columns: 80)[1].hasPrefix("  failed: command failed (exit status 2)"))
  }

  /// Hostile rows are shown escaped and cut to the width: escapes, bidi controls, a newline, wide
  /// and combining characters, and a line of a megabyte, none past the last column.
  @Test func hostileRowsAreEscapedAndCutToTheWidth() {
    let rows = [
      "\u{1B}[2J\u{1B}]0;owned\u{07}x", "a\u{202E}evil\u{2066}b", "line\nbreak\ttab",
      String(repeating: "한", count: 50), "e\u{301}" + String(repeating: "x", count: 1_000_000),
    ]
    let view = Self.lines(Self.results(rows), columns: 20, rows: 9)
    for line in view {
      #expect(!line.unicodeScalars.contains { $0.isTerminalUnsafe }, "\(line.debugDescription)")
      #expect(SearchPickerTests.columns(line) <= 19, "\(line)")
    }
    #expect(view[2] == "▌ \\u{1B}[2J\\u{1B}]…")
    #expect(view[3] == "  a\\u{202E}evil…")
    #expect(view[4] == "  line\\nbreak\\ttab")
    #expect(view[5] == "  " + String(repeating: "한", count: 8) + "…")
    #expect(view[6] == "  e\u{301}" + String(repeating: "x", count: 15) + "…")
  }

  /// The list scrolls to keep the selected row in view, and the matches of the query are
  /// highlighted.
  @Test func theListScrollsToTheSelectionAndMatchesAreHighlighted() {
    let items = (0..<100).map { "row \($0)" }
    let state = Self.apply([.moved(by: 50)], to: Self.results(items, query: "ow 5"))
    let view = Self.lines(state, rows: 8)
    #expect(view[2...6].contains("▌ r\u{1B}[33mow 5\u{1B}[0m0") == false)
    let plain = Self.lines(state, rows: 8)
    #expect(plain[6] == "▌ row 50")
    let colour = Self.lines(state, rows: 8, style: Style(enabled: true))
    #expect(colour[6].contains("r\u{1B}[33mow 5\u{1B}[0m0"), "\(colour[6].debugDescription)")
  }

  /// A terminal too small for the whole view gets what fits: never more rows than it has, never
  /// a row past its width, a long query cut before the cursor.
  @Test(arguments: [(1, 1), (2, 3), (5, 2), (12, 4), (3, 30)])
  func aTinyTerminalGetsWhatFits(columns: Int, rows: Int) {
    var state = Self.results(
      ["swift", "한국어", "a\u{1B}b"], query: String(repeating: "q", count: 40))
    state.selected = 2
    let view = Self.lines(state, columns: columns, rows: rows)
    #expect(view.count <= rows)
    #expect(columns >= 4 || view.isEmpty)
    for line in view { #expect(Self.columns(line) <= columns - 1, "\(line)") }
    var top = 0
    let (_, cursor) = SearchPicker.lines(
      state, counts: SearchCounts(), spinner: 0, columns: columns, rows: rows, top: &top,
      style: Style(enabled: false), multi: false)
    #expect(cursor <= max(columns - 1, 1))
  }

  /// Columns a plain line takes: two for wide characters, none for combining marks.
  static func columns(_ line: String) -> Int {
    line.reduce(0) { total, character in
      let value = character.unicodeScalars.first?.value ?? 0
      return total
        + ((0xAC00...0xD7A3).contains(value) ? 2 : (0x300...0x36F).contains(value) ? 0 : 1)
    }
  }
}
