import LoadctlCore

/// Where `search` looks: the built-in names, a `--corpus` file, or a `--url` template; and the
/// simulated delay in front of it.
package struct SearchSource: Sendable {
  package enum Backend: Sendable {
    case builtIn
    case corpus(path: String, SearchCorpus)
    case url(SearchURLTemplate, timeout: Duration)
  }

  package let backend: Backend
  package let latency: SearchLatency
  /// The most results kept from each answer.
  package let limit: Int

  /// Picks and validates the backend and the delay from the options.
  /// - Throws: `UsageError` for conflicting or invalid options, `InputFile.Failure` for a corpus
  ///   file that cannot be used (exit 65).
  init(_ invocation: Invocation) throws {
    let corpus = invocation.string("corpus")
    let url = invocation.string("url")
    if corpus != nil, url != nil {
      throw UsageError.invalidValue(
        "'--corpus' and '--url' cannot be used together", command: "search")
    }
    if url == nil, invocation.isGiven("timeout") {
      throw UsageError.invalidValue("'--timeout' only applies to '--url'", command: "search")
    }
    if let url {
      if invocation.string("clock") == "virtual" {
        throw UsageError.invalidValue(
          "'--url' cannot be used with '--clock virtual': network time is not virtual",
          command: "search")
      }
      backend = .url(
        try SearchURLTemplate(url), timeout: invocation.duration("timeout") ?? .seconds(10))
    } else if let corpus {
      backend = .corpus(path: corpus, try SearchCorpus.load(corpus))
    } else {
      backend = .builtIn
    }
    // A real server has its own latency: with --url the simulated one is only what is asked for.
    let simulated = url == nil || invocation.isGiven("latency")
    // Virtual time promises the same output for the same command line: its default seed is 0.
    let virtual = invocation.string("clock") == "virtual"
    let seed =
      invocation.int("seed").map { UInt64($0) } ?? (virtual ? 0 : SearchLatency.randomSeed())
    latency = SearchLatency(
      latency: simulated ? invocation.duration("latency") ?? .milliseconds(200) : .zero,
      jitter: invocation.duration("jitter") ?? .zero, seed: seed)
    limit = invocation.int("limit") ?? 10
  }

  /// The source's settings for the `start` event.
  var options: [(String, JSONValue)] {
    var pairs: [(String, JSONValue)]
    switch backend {
    case .builtIn:
      pairs = [("source", "builtin"), ("names", .int(SearchCorpus.builtIn.names.count))]
    case .corpus(let path, let corpus):
      pairs = [
        ("source", "corpus"), ("corpus", .string(path)), ("names", .int(corpus.names.count)),
      ]
    case .url(let template, let timeout):
      pairs = [
        ("source", "url"), ("url", .string(template.template)),
        ("timeout_ms", .double(EventOutput.milliseconds(timeout))),
      ]
    }
    return pairs + [
      ("latency_ms", .double(EventOutput.milliseconds(latency.latency))),
      ("jitter_ms", .double(EventOutput.milliseconds(latency.jitter))),
      ("seed", .int(Int(clamping: latency.seed))), ("limit", .int(limit)),
    ]
  }

  /// The fetch function the flow's request effect calls: wait the simulated delay on `clock`,
  /// then ask the backend.
  func fetcher(clock: any Clock<Duration>) -> @Sendable (SearchRequest) async throws -> SearchHits {
    let latency = self.latency
    let limit = self.limit
    let lookup: @Sendable (String) async throws -> SearchHits
    switch backend {
    case .builtIn:
      lookup = { SearchCorpus.builtIn.search($0, limit: limit) }
    case .corpus(_, let corpus):
      lookup = { corpus.search($0, limit: limit) }
    case .url(let template, let timeout):
      let http = HTTPFetcher(timeout: timeout)
      lookup = { query in
        let url = template.url(for: query)
        let names = try SearchURLTemplate.decode(try await http.get(url), from: url)
        return SearchHits(items: Array(names.prefix(limit)), total: names.count)
      }
    }
    return { request in
      let delay = latency.delay(forRequest: request.revision)
      if delay > .zero { try await clock.sleep(for: delay) }
      return try await lookup(request.query)
    }
  }
}
