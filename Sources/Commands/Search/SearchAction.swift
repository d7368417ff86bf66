import LoadctlCore

/// What can happen to the search screen.
package enum SearchAction: Sendable, Equatable, ReportableAction {
  /// The text in the box changed (a keystroke, an input line, the positional query).
  case queryChanged(String)
  /// Typing paused for the debounce interval after query number `revision`.
  case debounceElapsed(query: String, revision: Int)
  /// The backend answered (or failed) the request for query number `revision`.
  case response(query: String, revision: Int, result: Result<SearchHits, LoadFailure>)
  /// The process is stopping (Ctrl-C, SIGTERM): whatever is pending ends, never as an error.
  case interrupt
  /// A key edited the box or moved its cursor: the box as the key left it.
  case edited(SearchBox)
  /// Up, Down, Page Up or Down moved the picker's selection by this many rows.
  case moved(by: Int)
  /// Tab (`true`) marked or Shift-Tab unmarked the selected row, and moved past it.
  case marked(Bool)
  /// Enter picked the selected row, or the marked ones.
  case picked
  /// Esc or Ctrl-G left the picker without a pick.
  case dismissed

  package var name: String {
    switch self {
    case .queryChanged, .edited: "query_changed"
    case .debounceElapsed: "debounce_elapsed"
    case .response: "response"
    case .interrupt: "interrupt"
    case .moved: "selection_moved"
    case .marked: "marked"
    case .picked: "picked"
    case .dismissed: "dismissed"
    }
  }

  package var fields: [(String, JSONValue)] {
    switch self {
    case .queryChanged(let query):
      return [("query", .string(query))]
    case .edited(let box):
      return [("query", .string(box.text)), ("cursor", .int(box.cursor))]
    case .moved(let rows):
      return [("by", .int(rows))]
    case .marked(let on):
      return [("on", .bool(on))]
    case .picked, .dismissed:
      return []
    case .debounceElapsed(let query, let revision):
      return [("query", .string(query)), ("revision", .int(revision))]
    case .response(let query, let revision, let result):
      let head: [(String, JSONValue)] = [("query", .string(query)), ("revision", .int(revision))]
      switch result {
      case .success(let hits):
        return head + [
          ("ok", true), ("count", .int(hits.items.count)), ("total", .int(hits.total)),
        ]
      case .failure(let failure):
        return head + [("ok", false), ("message", .string(failure.message))]
      }
    case .interrupt:
      return []
    }
  }

  package var summary: String {
    switch self {
    case .queryChanged(let query): "typed \(quoted(query))"
    case .debounceElapsed(let query, _): "debounced \(quoted(query))"
    case .response(let query, _, _): "response \(quoted(query))"
    case .interrupt: "interrupt"
    case .edited(let box):
      box.afterCursor == 0
        ? "typed \(quoted(box.text))" : "typed \(quoted(box.text)) (cursor \(box.cursor))"
    case .moved(let rows): "moved \(rows > 0 ? "down" : "up") \(abs(rows))"
    case .marked(let on): on ? "marked" : "unmarked"
    case .picked: "picked"
    case .dismissed: "dismissed"
    }
  }

  /// Parses an `--input` line body: the whole text of the search box at that moment.
  ///
  /// A body is taken as it is, except that one starting with `"` is read as a JSON string, so a
  /// script can type what a plain line cannot hold: `""` (an empty box), leading or trailing
  /// spaces, a leading `#`, `+` or `@`.
  package static func parse(_ body: String) -> Result<SearchAction, LineProblem> {
    guard body.hasPrefix("\"") else { return .success(.queryChanged(body)) }
    do throws(JSONParser.Failure) {
      guard case .string(let text) = try JSONParser.parse(body) else {
        return .failure(LineProblem("a quoted query must be one JSON string"))
      }
      return .success(.queryChanged(text))
    } catch {
      return .failure(
        LineProblem("invalid quoted query \(body) (\(error.reason))"))
    }
  }

  /// The input line that types `query`: quoted only when a plain line would change it.
  package static func line(typing query: String) -> String {
    let plain =
      !query.isEmpty && query.trimmingSpaces == query
      && !["#", "+", "@", "\""].contains(where: query.hasPrefix)
      && query.unicodeScalars.allSatisfy { $0.value >= 0x20 }
    return plain ? query : quoted(query)
  }
}
