import LoadctlCore

/// The search flow: the SwiftUI `SearchScreen` pattern (`.task(id: query)` with a debounce) as a reducer,
/// and, with `naive`, its `SearchScreenWrong` (one unstructured task per change, no cancellation).
///
/// Every piece of work for a query runs under one effect id, ``searchID``. A new query registers
/// its debounce with the `latest` policy, which cancels whatever is in flight under that id — the
/// pending debounce *or* the request that followed it — and starts only once the old effect has
/// ended. The request itself is registered `parallel` on the same id: it is started by the
/// debounce effect's own action, while that effect is still finishing, and must not cancel it.
/// The store drops every action a cancelled effect sends, so a response for an older query can
/// never reach the state; the reducer's revision check says the same thing a second time.
package struct SearchFlow: Sendable {
  /// Fetches the hits for one request; throws `LoadFailure` (or any error) on failure.
  package let fetch: @Sendable (SearchRequest) async throws -> SearchHits
  package let clock: any Clock<Duration>
  /// How long typing must pause before a request; zero requests at once (still latest-wins).
  package let debounce: Duration
  /// Reproduce the race: no debounce, no cancellation, every response applied.
  package let naive: Bool
  /// The picker a run at a terminal shows the flow in and ends with a pick; `nil` for a log.
  package var picker: SearchPicker?

  package static let searchID: EffectID = "search"
  /// The effect names, which the renderer turns into `request_*` events; a request effect's
  /// ``EffectInfo/detail`` is its ``SearchRequest``.
  package static let requestName = "request"
  package static let debounceName = "debounce"

  package init(
    fetch: @escaping @Sendable (SearchRequest) async throws -> SearchHits,
    clock: any Clock<Duration>, debounce: Duration = .milliseconds(300), naive: Bool = false
  ) {
    self.fetch = fetch
    self.clock = clock
    self.debounce = debounce
    self.naive = naive
  }

  package func reduce(_ state: inout SearchState, _ action: SearchAction) -> Effect<SearchAction> {
    switch action {
    case .queryChanged(let query):
      return edit(&state, SearchBox(text: query, afterCursor: 0), ignoringUnchanged: true)
    case .edited(let box):
      return edit(&state, box, ignoringUnchanged: false)
    case .moved(let rows):
      let count = state.hits.count
      guard count > 0 else { return .ignored("no results to move through") }
      state.selected = min(max(state.selected + rows, 0), count - 1)
      return .none
    case .marked(let on):
      let hits = state.hits
      guard state.selected < hits.count else { return .ignored("no result to mark") }
      let row = hits[state.selected]
      state.marked.removeAll { $0 == row }
      if on { state.marked.append(row) }
      state.selected = min(max(state.selected + (on ? 1 : -1), 0), hits.count - 1)
      return .none
    case .picked:
      let hits = state.hits
      let selected = state.selected < hits.count ? [hits[state.selected]] : []
      state.ending = .picked(state.marked.isEmpty ? selected : state.marked)
      return .cancel(id: Self.searchID)
    case .dismissed:
      state.ending = .dismissed
      return .cancel(id: Self.searchID)
    case .debounceElapsed(let query, let revision):
      guard case .debouncing = state.phase, revision == state.revision else {
        return .ignored("not debouncing query \(revision)")
      }
      state.phase = .searching(query: query)
      return request(SearchRequest(query: query, revision: revision))
        .cancellable(id: Self.searchID, policy: .parallel)
    case .response(let query, let revision, let result):
      if naive {
        let stale = revision < state.newestShown
        show(query, revision, result, stale: stale, in: &state)
        return .none
      }
      guard case .searching = state.phase, revision == state.revision else {
        return .ignored("response for an older query")
      }
      show(query, revision, result, stale: false, in: &state)
      return .none
    case .interrupt:
      switch state.phase {
      case .debouncing, .searching:
        state.phase = .idle
      case .idle, .results, .failed:
        break
      }
      // The run cancels everything as it ends; saying so keeps the reducer right on its own.
      return .cancel(id: Self.searchID)
    }
  }

  /// The box as `box` holds it: a new query goes through ``queryChanged(_:)`` (or the naive
  /// race); a cursor moved within the same query changes nothing else.
  private func edit(_ state: inout SearchState, _ box: SearchBox, ignoringUnchanged: Bool)
    -> Effect<SearchAction>
  {
    let query = box.text
    // Unchanged by its bytes, not by `String ==` alone: canonically equivalent text spelled
    // with other scalars (`café` composed, then decomposed) reaches `--exec` and `--url` as
    // other bytes, and their results must be for what the box holds. `==` first: it is fast
    // where the bytes are (a paste types thousands of keys into a long query).
    guard !(query == state.query && query.utf8.elementsEqual(state.query.utf8)) else {
      guard !ignoringUnchanged else { return .ignored("query unchanged") }
      state.afterCursor = box.afterCursor
      return .none
    }
    state.query = query
    state.afterCursor = box.afterCursor
    state.revision += 1
    return naive ? naiveQueryChanged(&state) : queryChanged(&state)
  }

  /// Latest wins: cancel the pending debounce or request, then debounce the new text.
  private func queryChanged(_ state: inout SearchState) -> Effect<SearchAction> {
    let query = state.query
    guard !query.isEmpty else {
      clear(&state)
      return .cancel(id: Self.searchID)
    }
    let revision = state.revision
    guard debounce > .zero else {
      state.phase = .searching(query: query)
      return request(SearchRequest(query: query, revision: revision))
        .cancellable(id: Self.searchID, policy: .latest)
    }
    state.phase = .debouncing(query: query)
    return .run(name: Self.debounceName) { [clock, debounce] send in
      try await clock.sleep(for: debounce)
      send(.debounceElapsed(query: query, revision: revision))
    }
    .cancellable(id: Self.searchID, policy: .latest)
  }

  /// `SearchScreenWrong`: every change starts its own request and nothing is ever cancelled.
  private func naiveQueryChanged(_ state: inout SearchState) -> Effect<SearchAction> {
    guard !state.query.isEmpty else {
      clear(&state)
      return .none
    }
    state.phase = .searching(query: state.query)
    return request(SearchRequest(query: state.query, revision: state.revision))
      .cancellable(id: Self.searchID, policy: .parallel)
  }

  /// An empty box shows nothing at once; it counts as shown, so older responses are stale.
  private func clear(_ state: inout SearchState) {
    state.phase = .idle
    state.newestShown = state.revision
    state.stale = false
  }

  private func show(
    _ query: String, _ revision: Int, _ result: Result<SearchHits, LoadFailure>, stale: Bool,
    in state: inout SearchState
  ) {
    state.selected = 0
    switch result {
    case .success(let hits): state.phase = .results(query: query, hits: hits)
    case .failure(let failure): state.phase = .failed(query: query, message: failure.message)
    }
    state.newestShown = max(state.newestShown, revision)
    state.stale = stale
  }

  private func request(_ request: SearchRequest) -> Effect<SearchAction> {
    .run(name: Self.requestName, detail: EffectDetail(request)) { [fetch] send in
      let hits = try await fetch(request)
      send(.response(query: request.query, revision: request.revision, result: .success(hits)))
    } catch: { error, send in
      let message = (error as? LoadFailure)?.message ?? "\(error)"
      send(
        .response(
          query: request.query, revision: request.revision,
          result: .failure(LoadFailure(message))))
    }
  }
}
