import LoadctlCore

/// A search action in a recording. A response keeps every hit, not just the count its events
/// show: `{"action":"response","query":"sw","revision":2,"ok":true,"items":["swift"],"total":9}`,
/// or `"ok":false` with the failure's `message`.
extension SearchAction: RecordableAction {
  /// Every case as written, for ``RecordedFields/unknownAction(expected:)``.
  private static let recordedNames = [
    "query_changed", "debounce_elapsed", "response", "interrupt", "selection_moved", "marked",
    "picked", "dismissed",
  ]

  package var recorded: JSONValue {
    var pairs: [(String, JSONValue)] = [("action", .string(name))]
    switch self {
    case .queryChanged(let query):
      pairs.append(("query", .string(query)))
    case .debounceElapsed(let query, let revision):
      pairs += [("query", .string(query)), ("revision", .int(revision))]
    case .response(let query, let revision, let result):
      pairs += [("query", .string(query)), ("revision", .int(revision))]
      switch result {
      case .success(let hits):
        pairs += [
          ("ok", true), ("items", .array(hits.items.map { .string($0) })),
          ("total", .int(hits.total)),
        ]
      case .failure(let failure):
        pairs += [("ok", false), ("message", .string(failure.message))]
      }
    case .edited(let box):
      pairs += [("query", .string(box.text)), ("cursor", .int(box.cursor))]
    case .moved(let rows):
      pairs.append(("by", .int(rows)))
    case .marked(let on):
      pairs.append(("on", .bool(on)))
    case .interrupt, .picked, .dismissed:
      break
    }
    return .object(pairs)
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<SearchAction, LineProblem> {
    Result { () throws(LineProblem) -> SearchAction in
      let fields = try RecordedFields(value, of: "search")
      switch fields.action {
      case "query_changed":
        let query = try fields.string("query")
        guard value["cursor"] != nil else { return .queryChanged(query) }
        return .edited(SearchBox(query, cursor: try fields.count("cursor")))
      case "debounce_elapsed":
        return .debounceElapsed(
          query: try fields.string("query"), revision: try fields.count("revision"))
      case "response":
        let query = try fields.string("query")
        let revision = try fields.count("revision")
        guard try fields.bool("ok") else {
          let failure = LoadFailure(try fields.string("message"))
          return .response(query: query, revision: revision, result: .failure(failure))
        }
        let hits = SearchHits(items: try fields.strings("items"), total: try fields.count("total"))
        return .response(query: query, revision: revision, result: .success(hits))
      case "interrupt":
        return .interrupt
      case "selection_moved":
        return .moved(by: try fields.int("by"))
      case "marked":
        return .marked(try fields.bool("on"))
      case "picked":
        return .picked
      case "dismissed":
        return .dismissed
      default:
        throw fields.unknownAction(expected: recordedNames)
      }
    }
  }
}
