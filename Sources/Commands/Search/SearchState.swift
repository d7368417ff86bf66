import LoadctlCore

/// What the search screen shows, one case at a time: `searching` can never carry old results.
package enum SearchPhase: Sendable, Equatable {
  /// Nothing to show: no query, or a cancelled one.
  case idle
  /// Waiting for typing to pause before asking the backend.
  case debouncing(query: String)
  /// A request for `query` is in flight.
  case searching(query: String)
  /// The backend answered `query`.
  case results(query: String, hits: SearchHits)
  /// The backend failed for `query`.
  case failed(query: String, message: String)

  /// The case name used in JSON snapshots (`state`).
  package var name: String {
    switch self {
    case .idle: "idle"
    case .debouncing: "debouncing"
    case .searching: "searching"
    case .results: "results"
    case .failed: "failed"
    }
  }

  /// The query the phase is about; `nil` when idle.
  package var query: String? {
    switch self {
    case .idle: nil
    case .debouncing(let query), .searching(let query): query
    case .results(let query, _), .failed(let query, _): query
    }
  }
}

/// How a picker run ended: a pick (the rows printed; none when there was nothing to pick), or
/// dismissed (Esc, Ctrl-G).
package enum SearchEnding: Sendable, Equatable {
  case picked([String])
  case dismissed
}

/// The search screen: the text in the box, the phase shown, and the bookkeeping naive mode needs
/// to tell a stale response from a fresh one.
package struct SearchState: Sendable, Equatable, ReportableState {
  package var phase: SearchPhase = .idle
  /// The text in the search box now; the phase may still be about an older query (naive mode).
  package var query = ""
  /// How many times the text changed: the number of the latest query.
  package var revision = 0
  /// The number of the newest query whose outcome (or clearing) has been shown.
  package var newestShown = 0
  /// Whether the outcome shown belongs to a query older than one already shown before it.
  package var stale = false
  /// How many characters of the query follow the cursor (keys move it; 0 at the end).
  package var afterCursor = 0
  /// The row of the results the picker has selected.
  package var selected = 0
  /// The rows marked (`--multi`), by their text, in the order they were marked.
  package var marked: [String] = []
  /// How the picker ended, once it has.
  package var ending: SearchEnding?

  package init() {}

  /// The query and the cursor in it, for the keys to edit.
  package var box: SearchBox { SearchBox(text: query, afterCursor: afterCursor) }

  /// The results shown, if any.
  package var hits: [String] {
    guard case .results(_, let hits) = phase else { return [] }
    return hits.items
  }

  package var snapshot: JSONValue {
    var pairs: [(String, JSONValue)] = [("state", .string(phase.name))]
    switch phase {
    case .idle:
      break
    case .debouncing(let query), .searching(let query):
      pairs.append(("query", .string(query)))
    case .results(let query, let hits):
      pairs += [
        ("query", .string(query)), ("items", .array(hits.items.map(JSONValue.string))),
        ("total", .int(hits.total)), ("stale", .bool(stale)),
      ]
    case .failed(let query, let message):
      pairs += [("query", .string(query)), ("message", .string(message)), ("stale", .bool(stale))]
    }
    return .object(pairs)
  }

  /// The phase for text output; what the backend said (a message) has its control characters
  /// escaped, and the query is ``quoted(_:)``.
  package var summary: String {
    switch phase {
    case .idle: "idle"
    case .debouncing(let query): "debouncing \(quoted(query))"
    case .searching(let query): "searching \(quoted(query))"
    case .results(let query, let hits): "results \(quoted(query)) (\(hits.countText))"
    case .failed(let query, let message):
      "failed \(quoted(query)): \(message.escapingControlCharacters)"
    }
  }

  /// The summary followed by the items, for the lines people read the results from; each item
  /// (a backend's output) has its control characters escaped.
  package var summaryWithItems: String {
    guard case .results(_, let hits) = phase, !hits.items.isEmpty else { return summary }
    let items = hits.items.lazy.map(\.escapingControlCharacters).joined(separator: ", ")
    return "\(summary): \(items)"
  }
}

/// A query as people see it in text output: in double quotes, with JSON escapes, which also
/// cover DEL, C1 and the other scalars that must not reach a terminal raw
/// (``Unicode/Scalar/isTerminalUnsafe``), so no character of it drives or rearranges a terminal:
/// `"a\u001b[2J\u009b"`.
func quoted(_ query: String) -> String {
  JSONValue.string(query).serialized
}
