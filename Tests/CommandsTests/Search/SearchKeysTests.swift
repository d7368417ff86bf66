import LoadctlCore
import Synchronization
import Testing

@testable import LoadctlCommands

/// The search box typed live: every key edits the query the state holds, and the keys of one
/// read are one change of it.
@Suite struct SearchKeysTests {
  private static let flow = SearchFlow(
    fetch: { request in SearchHits(items: [request.query], total: 1) }, clock: VirtualClock(),
    debounce: .seconds(600))

  private static var keys: KeyMap<SearchState, SearchAction> {
    get throws { try #require(flow.keys) }
  }

  private static func state(query: String) -> SearchState {
    var state = SearchState()
    state.query = query
    return state
  }

  /// `typed QUERY` (with `|` at the cursor when it is not at the end), the action's name for
  /// the other actions (`step` for a step, `last` for the last), `quit` or `ignore`.
  private static func describe(_ result: KeyResult<SearchAction>) -> String {
    switch result {
    case .action(.queryChanged(let query)): "typed \(query)"
    case .action(.edited(let box)):
      box.afterCursor == 0
        ? "typed \(box.text)"
        : "typed \(box.text.prefix(box.cursor))|\(box.text.dropFirst(box.cursor))"
    case .action(let action): action.name
    case .step(let action): "step \(action.summary)"
    case .last(let action): "last \(action.name)"
    case .quit: "quit"
    case .ignore: "ignore"
    }
  }

  private static func state(query: String, cursor: Int, hits: [String] = []) -> SearchState {
    var state = Self.state(query: query)
    state.afterCursor = query.count - cursor
    if !hits.isEmpty {
      state.phase = .results(query: query, hits: SearchHits(items: hits, total: hits.count))
    }
    return state
  }

  @Test(arguments: [
    ("sw", Key.character("i"), "typed swi"), ("", .character("s"), "typed s"),
    ("sw", .character("q"), "typed swq"), ("", .character("q"), "typed q"),
    ("swé", .backspace, "typed sw"), ("s", .backspace, "typed "), ("", .backspace, "ignore"),
    ("sw", .escape, "last dismissed"), ("sw", .control("g"), "last dismissed"),
    ("sw", .other, "ignore"), ("sw", .enter, "last picked"), ("", .endOfInput, "last dismissed"),
  ])
  func aKeyEditsTheQueryOfTheState(query: String, key: Key, result: String) throws {
    #expect(Self.describe(try Self.keys.map(key, Self.state(query: query))) == result)
  }

  /// The keys of readline edit around the cursor (`|` in each case): it moves by a character,
  /// a word or to either end, and Backspace, Delete, Ctrl-U, Ctrl-W and Ctrl-K delete there.
  @Test(arguments: [
    ("swift ta|sk", Key.left, "typed swift t|ask"),
    ("swift ta|sk", .control("b"), "typed swift t|ask"),
    ("swift ta|sk", .right, "typed swift tas|k"),
    ("swift ta|sk", .control("f"), "typed swift tas|k"),
    ("swift ta|sk", .home, "typed |swift task"),
    ("swift ta|sk", .control("a"), "typed |swift task"),
    ("swift ta|sk", .end, "typed swift task"), ("swift ta|sk", .control("e"), "typed swift task"),
    ("swift ta|sk", .alt("b"), "typed swift |task"),
    ("sw|ift task", .alt("f"), "typed swift| task"),
    ("swift ta|sk", .backspace, "typed swift t|sk"), ("swift ta|sk", .delete, "typed swift ta|k"),
    ("swift ta|sk", .endOfInput, "typed swift ta|k"),
    ("swift ta|sk", .control("u"), "typed |sk"), ("swift ta|sk", .control("w"), "typed swift |sk"),
    ("swift  |task", .control("w"), "typed |task"),
    ("swift ta|sk", .control("k"), "typed swift ta"),
    ("sw|ift", .character("é"), "typed swé|ift"), ("|swift", .left, "ignore"),
    ("swift|", .right, "ignore"), ("|swift", .control("u"), "ignore"),
    ("swift|", .delete, "ignore"), ("swift|", .endOfInput, "typed swift"),
  ])
  func aKeyEditsAtTheCursor(box: String, key: Key, result: String) throws {
    let cursor = try #require(box.firstIndex(of: "|"))
    let query = box.replacingOccurrences(of: "|", with: "")
    let state = Self.state(query: query, cursor: box.distance(from: box.startIndex, to: cursor))
    #expect(Self.describe(try Self.keys.map(key, state)) == result)
  }

  /// Up, Down, Ctrl-P/N and the page keys move the selection (steps, which a later key of the
  /// same read does not replace); with nothing to select they do nothing. Tab and Shift-Tab
  /// mark only with `--multi`.
  @Test func movingKeysStepThroughTheResults() throws {
    let state = Self.state(query: "s", cursor: 1, hits: ["a", "b", "c"])
    let keys = try Self.keys
    #expect(Self.describe(keys.map(.down, state)) == "step moved down 1")
    #expect(Self.describe(keys.map(.control("n"), state)) == "step moved down 1")
    #expect(Self.describe(keys.map(.up, state)) == "step moved up 1")
    #expect(Self.describe(keys.map(.control("p"), state)) == "step moved up 1")
    #expect(Self.describe(keys.map(.pageDown, state)) == "step moved down 10")
    #expect(Self.describe(keys.map(.down, Self.state(query: "s"))) == "ignore")
    #expect(Self.describe(keys.map(.tab, state)) == "ignore")
    var multi = Self.flow
    multi.picker = SearchPicker(
      screen: nil, style: Style(enabled: false), multi: true, printQuery: false)
    let multiKeys = try #require(multi.keys)
    #expect(Self.describe(multiKeys.map(.tab, state)) == "step marked")
    #expect(Self.describe(multiKeys.map(.backTab, state)) == "step unmarked")
  }

  /// The box holds at most 64 KiB: a key past it is ignored, backspace still works (a paste
  /// near the 1 MiB a read takes cost the square of its length).
  @Test func theBoxStopsAtItsSize() throws {
    let full = String(repeating: "a", count: SearchFlow.maxBoxBytes)
    let keys = try Self.keys
    #expect(Self.describe(keys.map(.character("b"), Self.state(query: full))) == "ignore")
    #expect(
      Self.describe(keys.map(.backspace, Self.state(query: full))).count == 6
        + SearchFlow.maxBoxBytes - 1)
    let almost = String(full.dropLast())
    #expect(
      Self.describe(keys.map(.character("é"), Self.state(query: almost))) == "typed \(almost)é")
  }

  /// Each read starts from the query the state holds as the read begins, whatever the keys
  /// before it typed; within a read, each key edits what the keys before it made.
  @Test func aReadOfKeysEditsTheStatesQueryAsItIsWhenTheReadBegins() throws {
    let state = Mutex(Self.state(query: "sw"))
    let mapper = FlowRunner.keyMapper(Self.flow, try Self.keys) { state.withLock { $0 } }
    let keys: [Key] = [.character("i"), .character("f"), .character("t")]
    let read = mapper(keys)
    #expect(keys.map { Self.describe(read($0)) } == ["typed swi", "typed swif", "typed swift"])
    state.withLock { $0 = Self.state(query: "abc") }
    let nextKeys: [Key] = [.backspace, .character("x")]
    let next = mapper(nextKeys)
    #expect(nextKeys.map { Self.describe(next($0)) } == ["typed ab", "typed abx"])
  }

  /// `q` is text, typed alone into an empty box or in a read of several keys (a paste).
  @Test func qIsText() throws {
    let state = Mutex(Self.state(query: ""))
    let mapper = FlowRunner.keyMapper(Self.flow, try Self.keys) { state.withLock { $0 } }
    #expect(Self.describe(mapper([.character("q")])(.character("q"))) == "typed q")
    let paste = "queue".map { Key.character($0) }
    let read = mapper(paste)
    #expect(paste.map { Self.describe(read($0)) }.first == "typed q")
    state.withLock { $0 = Self.state(query: "a") }
    let keys: [Key] = [.character("b"), .backspace, .backspace, .character("q")]
    let emptied = mapper(keys)
    #expect(
      keys.map { Self.describe(emptied($0)) } == ["typed ab", "typed a", "typed ", "typed q"])
  }

  /// Keys read together (a paste) reach the store as one change of the query, to all they
  /// typed, and the next read edits the query the store holds: one transition (one restart of
  /// the debounce) per read.
  @Test func eachReadOfKeysIsOneChangeOfTheStatesQuery() async throws {
    let clock = VirtualClock()
    let flow = SearchFlow(
      fetch: { request in SearchHits(items: [request.query], total: 1) }, clock: clock,
      debounce: .milliseconds(300))
    let keys = try #require(flow.keys)
    let reported = Mutex(SearchState())
    let (bursts, typing) = AsyncStream<[Key]>.makeStream()
    for burst: [Key] in [
      [.character("s"), .character("w"), .character("i"), .character("f"), .character("t")],
      [.backspace], [.character("x"), .backspace, .backspace, .character("y")],
    ] {
      typing.yield(burst)
    }
    typing.finish()
    let input = KeyActions(
      bursts: bursts, mapper: FlowRunner.keyMapper(flow, keys) { reported.withLock { $0 } },
      coalescing: keys.coalescing, quit: {})
    let seen = Mutex<[String]>([])
    let store = Store(initialState: flow.initialState, reducer: flow.reduce)
    let task = clock.launch {
      await store.run(inputs: input) { event in
        guard case .transition(let action, _, let to, _) = event else { return }
        reported.withLock { $0 = to }
        seen.withLock { $0.append(action.summary) }
      }
    }
    #expect(clock.run())
    let result = await task.value
    #expect(result.state.query == "swiy")
    #expect(
      seen.withLock { $0 } == [
        "typed \"swift\"", "typed \"swif\"", "typed \"swiy\"", "debounced \"swiy\"",
        "response \"swiy\"",
      ])
  }
}
