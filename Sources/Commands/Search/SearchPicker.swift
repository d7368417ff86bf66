import LoadctlCore

/// `search` at a terminal: the live view of the flow on `/dev/tty`, and how the run ends there.
///
/// The view draws what the store reports and nothing else: the query and the cursor, the phase
/// (a spinner while searching), the requests the renderer counted, the results with the selected
/// row marked and the query's matches highlighted, and a legend. Every row is escaped (no byte a
/// result holds can drive the terminal) and cut to the width. The view keeps only where its list
/// is scrolled to; it repaints on each change, and on its own clock for the spinner, a resize
/// and a return from a stop.
package final class SearchPicker: Sendable {
  private struct Model {
    var state = SearchState()
    var counts = SearchCounts()
    var spinner = 0
    var size: (columns: Int, rows: Int)?
    /// The first result row shown.
    var top = 0
    var ending: SearchEnding?
    var query = ""
  }

  /// Where the view is drawn; `nil` when nothing is (a replay, a test).
  let screen: TerminalScreen?
  /// Whether the view takes the place of the log, so that text mode prints only the pick: a
  /// drawn view, or a replay of one.
  let view: Bool
  let style: Style
  /// `--multi`: Tab marks rows, Enter prints the marked ones.
  package let multi: Bool
  /// `--print-query`: the query is printed before the pick.
  package let printQuery: Bool
  private let model = Locked(Model())

  package init(
    screen: TerminalScreen?, view: Bool? = nil, style: Style, multi: Bool, printQuery: Bool
  ) {
    self.screen = screen
    self.view = view ?? (screen != nil)
    self.style = style
    self.multi = multi
    self.printQuery = printQuery
    screen?.onResize { [weak self] in self?.redraw() }
  }

  /// How many result rows a page holds (Page Up, Page Down).
  package var pageRows: Int { max(1, (screen?.size.rows ?? 24) - 3) }

  /// The state the store reported last.
  func show(_ state: SearchState) {
    model.withLock { $0.state = state }
    redraw()
  }

  /// The renderer's counts of requests.
  func show(_ counts: SearchCounts) {
    model.withLock { $0.counts = counts }
    redraw()
  }

  /// How the run ended, from its last state.
  func ended(_ state: SearchState) {
    model.withLock { model in
      model.ending = state.ending
      model.query = state.query
    }
  }

  /// How the run ended, once it has.
  package var ending: SearchEnding? { model.withLock { $0.ending } }

  /// What the run prints on stdout: the query (`--print-query`), then the picked rows, a line
  /// each; `nil` when it prints nothing.
  package var printed: String? {
    let (ending, query) = model.withLock { ($0.ending, $0.query) }
    guard case .picked(let rows) = ending else { return nil }
    let lines = (printQuery ? [query] : []) + rows
    return lines.isEmpty ? nil : lines.map { $0 + "\n" }.joined()
  }

  /// Takes the view down (the screen as it was before); the session does it on the ways out
  /// that do not come back here.
  func finish() {
    screen?.leave()
  }

  /// Turns the spinner and repaints after a stop, every `interval`, until cancelled; run it
  /// beside the store. A resize repaints at once (SIGWINCH, ``TerminalScreen/onResize(_:)``).
  func run(clock: any Clock<Duration>, interval: Duration = .milliseconds(80)) async {
    guard let screen else { return }
    while !Task.isCancelled {
      let busy = model.withLock { model in
        switch model.state.phase {
        case .searching, .debouncing:
          model.spinner += 1
          return true
        case .idle, .results, .failed: return false
        }
      }
      if busy || screen.isStale { redraw() }
      do { try await clock.sleep(for: interval) } catch { break }
    }
  }

  private func redraw() {
    guard let screen else { return }
    let size = screen.size
    let frame = model.withLock { model in
      model.size = size
      return Self.frame(
        model.state, counts: model.counts, spinner: model.spinner, columns: size.columns,
        rows: size.rows, top: &model.top, style: style, multi: multi)
    }
    screen.draw(frame)
  }

  /// The rows of the view, top to bottom, and the column of the cursor in the first.
  static func lines(
    _ state: SearchState, counts: SearchCounts, spinner: Int, columns: Int, rows: Int,
    top: inout Int, style: Style, multi: Bool
  ) -> (lines: [String], cursor: Int) {
    // Narrower than the prompt and a character: nothing fits, nothing is drawn.
    guard columns >= 4, rows >= 1 else { return ([], 1) }
    let width = columns - 1
    let (query, cursor) = Self.queryLine(state.box, width: width - 2)
    var lines = [style.bold(">") + " " + query]
    lines.append(statusLine(state, counts: counts, spinner: spinner, width: width, style: style))
    let hits = state.hits
    let listRows = max(rows - 3, 0)
    if state.selected < top { top = state.selected }
    if state.selected >= top + listRows { top = state.selected - listRows + 1 }
    top = max(0, min(top, max(hits.count - listRows, 0)))
    let marked = Set(state.marked)
    for row in 0..<listRows {
      let index = top + row
      guard index < hits.count else {
        lines.append("")
        continue
      }
      let item = hits[index]
      let isSelected = index == state.selected
      var prefix = isSelected ? style.bold("▌") : " "
      if multi { prefix += marked.contains(item) ? style.green("•") : " " }
      let text = Self.shown(item, width: width - (multi ? 3 : 2), query: state.query, style: style)
      lines.append(prefix + " " + (isSelected ? style.bold(text) : text))
    }
    if rows >= 4 {
      var legend = "Enter pick · Esc quit · ↑↓ PgUp PgDn move · ←→ ^A ^E ^U ^W ^K edit"
      if multi { legend = "Tab mark · Shift-Tab unmark · " + legend }
      lines.append(style.dim(Self.cut(legend, width: width).text))
    }
    return (Array(lines.prefix(max(rows, 1))), 3 + cursor)
  }

  /// The sequence that paints the view over the last one: each row in place, the cursor in the
  /// query.
  static func frame(
    _ state: SearchState, counts: SearchCounts, spinner: Int, columns: Int, rows: Int,
    top: inout Int, style: Style, multi: Bool
  ) -> String {
    let (lines, cursor) = Self.lines(
      state, counts: counts, spinner: spinner, columns: columns, rows: rows, top: &top,
      style: style, multi: multi)
    var frame = "\u{1B}[?25l"
    for (index, line) in lines.enumerated() {
      frame += "\u{1B}[\(index + 1);1H" + line + "\u{1B}[K"
    }
    frame += "\u{1B}[J\u{1B}[1;\(min(cursor, max(columns, 1)))H\u{1B}[?25h"
    return frame
  }

  /// The query, escaped and cut to `width` around the cursor, and the cursor's column in it.
  static func queryLine(_ box: SearchBox, width: Int) -> (text: String, cursor: Int) {
    let characters = Array(box.text)
    let cursor = box.cursor
    let before = characters[..<cursor].map(Self.piece)
    let after = characters[cursor...].map(Self.piece)
    // What fits before the cursor, from the cursor back, with room for the cursor itself.
    var shownBefore: [(String, Int)] = []
    var used = 0
    for piece in before.reversed() {
      guard used + piece.1 < width else { break }
      shownBefore.insert(piece, at: 0)
      used += piece.1
    }
    var text = shownBefore.map(\.0).joined()
    var cursorColumn = used
    if shownBefore.count < before.count, let first = shownBefore.first {
      text = "…" + shownBefore.dropFirst().map(\.0).joined()
      cursorColumn = used - first.1 + 1
    }
    var total = cursorColumn
    for piece in after {
      guard total + piece.1 <= width else { break }
      text += piece.0
      total += piece.1
    }
    return (text, cursorColumn)
  }

  private static func statusLine(
    _ state: SearchState, counts: SearchCounts, spinner: Int, width: Int, style: Style
  ) -> String {
    let frames = Spinner.frames
    let phase: String
    switch state.phase {
    case .idle: phase = state.query.isEmpty ? "type to search" : "idle"
    case .debouncing: phase = "\(frames[spinner % frames.count]) debouncing"
    case .searching: phase = "\(frames[spinner % frames.count]) searching"
    case .results(_, let hits):
      phase = hits.total == 0 ? "no results" : "\(hits.items.count) of \(hits.total)"
    case .failed(_, let message): phase = "failed: " + message
    }
    var tally = "\(counts.started) started · \(counts.cancelled) cancelled"
    if counts.stale > 0 { tally += " · \(counts.stale) stale" }
    let line = cut("  " + phase + "  [" + tally + "]", width: width).text
    if case .failed = state.phase { return style.red(line) }
    return style.dim(line)
  }

  /// `text` as the view shows it: escaped, cut to `width` columns (an ellipsis where it was
  /// cut), and the query's matches highlighted.
  static func shown(_ text: String, width: Int, query: String, style: Style) -> String {
    let (pieces, characters) = cutPieces(text, width: width)
    let needle = query.map { String($0).lowercased() }
    var highlighted = [Bool](repeating: false, count: pieces.count)
    if !needle.isEmpty, characters.count >= needle.count {
      let lowered = characters.map { String($0).lowercased() }
      var index = 0
      while index + needle.count <= lowered.count {
        if Array(lowered[index..<index + needle.count]) == needle {
          for offset in index..<index + needle.count { highlighted[offset] = true }
          index += needle.count
        } else {
          index += 1
        }
      }
    }
    var shown = ""
    var run = ""
    for (index, piece) in pieces.enumerated() {
      if index < highlighted.count, highlighted[index] {
        run += piece.0
        continue
      }
      if !run.isEmpty {
        shown += style.yellow(run)
        run = ""
      }
      shown += piece.0
    }
    if !run.isEmpty { shown += style.yellow(run) }
    return shown
  }

  /// `text` escaped and cut to `width` columns, an ellipsis where it was cut.
  static func cut(_ text: String, width: Int) -> (text: String, columns: Int) {
    let pieces = cutPieces(text, width: width).pieces
    return (pieces.map(\.0).joined(), pieces.reduce(0) { $0 + $1.1 })
  }

  /// The pieces of `text` that fit `width` columns (the last an ellipsis when it was cut), each
  /// a character as shown and its width; and the characters shown, without the ellipsis.
  private static func cutPieces(_ text: String, width: Int) -> (
    pieces: [(String, Int)], characters: [Character]
  ) {
    var pieces: [(String, Int)] = []
    var characters: [Character] = []
    var used = 0
    var cut = false
    for character in text {
      let piece = Self.piece(character)
      guard used + piece.1 <= width else {
        cut = true
        break
      }
      pieces.append(piece)
      characters.append(character)
      used += piece.1
    }
    if cut {
      while used + 1 > width, let last = pieces.popLast() {
        used -= last.1
        characters.removeLast()
      }
      if width >= 1 { pieces.append(("…", 1)) }
    }
    return (pieces, characters)
  }

  /// A character as the view shows it, and how many columns it takes: escaped when a terminal
  /// must not get it raw, wide characters two columns, combining marks none.
  private static func piece(_ character: Character) -> (String, Int) {
    let scalars = character.unicodeScalars
    if scalars.contains(where: \.isTerminalUnsafe) {
      let escaped = String(character).escapingControlCharacters
      return (escaped, escaped.count)
    }
    guard let first = scalars.first else { return ("", 0) }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return (String(character), 0)
    default: break
    }
    return (String(character), isWide(first) ? 2 : 1)
  }

  private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.properties.isEmojiPresentation { return true }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x20000...0x3FFFD:
      return true
    default: return false
    }
  }
}
