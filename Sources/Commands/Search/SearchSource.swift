import LoadctlCore

/// Where `search` looks: the built-in names, a `--corpus` file, a `--url` template fetched by
/// curl, or an `--exec` command template; and the simulated delay in front of it.
package struct SearchSource: Sendable {
  package enum Backend: Sendable {
    case builtIn
    /// `--corpus`: its names, read for a real run; a replay, which searches nothing, only
    /// knows how many the recorded run read.
    case corpus(path: String, names: Int, SearchCorpus?)
    /// `--url`: curl (at `curl`) GETs the template for each query.
    case url(SearchURLTemplate, curl: String, headers: [String], limits: Limits)
    /// `--exec`: `/bin/sh -c` runs the template for each query, in `environment` (loadctl's own)
    /// with the query added.
    case exec(SearchExecTemplate, environment: [String: String], limits: Limits)
  }

  /// How long a request's process may run, and its grace between SIGTERM and SIGKILL when it
  /// is torn down (a newer query, an empty box, Ctrl-C, the timeout).
  package struct Limits: Sendable, Equatable {
    package let timeout: Duration
    package let killAfter: Duration
  }

  package let backend: Backend
  package let latency: SearchLatency
  /// The most results kept from each answer.
  package let limit: Int

  /// Picks and validates the backend and the delay from the options.
  /// - Parameter environment: Where `PATH` is looked up for curl; what `--exec` commands get.
  /// - Throws: `UsageError` for conflicting or invalid options, `ExternalCommand.Unavailable` when `--url`
  ///   cannot find curl, `InputFile.Failure` for a corpus file that cannot be used (exit 65).
  /// - Parameter picking: The results go to a picker, which keeps up to ``pickerLimit`` of
  ///   them unless `--limit` says otherwise.
  init(
    _ invocation: Invocation, mode: RunMode, environment: [String: String], picking: Bool = false
  ) throws {
    typealias Option = SearchCommand.Option
    let corpus = invocation[Option.corpus]
    let url = invocation[Option.url]
    let exec = invocation[Option.exec]
    let given = [("--corpus", corpus), ("--url", url), ("--exec", exec)].filter { $0.1 != nil }
    if given.count > 1 {
      throw UsageError.invalidValue(
        "'\(given[0].0)' and '\(given[1].0)' cannot be used together", command: "search")
    }
    let runsProcesses = url != nil || exec != nil
    if !runsProcesses,
      let option = [Option.timeout, Option.killAfter].first(where: invocation.isGiven)
    {
      throw UsageError.invalidValue(
        "'\(option.spec.longForm)' only applies to '--url' and '--exec'", command: "search")
    }
    let headers = try ExternalCommand.checkedOptions(
      headers: invocation[Option.header], command: invocation.command, mode: mode,
      given: given.first?.0, runsProcess: runsProcesses)
    let limits = Limits(
      timeout: invocation[Option.timeout], killAfter: invocation[Option.killAfter])
    if let url {
      let template = try SearchURLTemplate(url)
      let curl = try ExternalCommand.curl(environment: environment, task: "search", mode: mode)
      backend = .url(template, curl: curl, headers: headers, limits: limits)
    } else if let exec {
      backend = .exec(try SearchExecTemplate(exec), environment: environment, limits: limits)
    } else if let corpus, mode.isReplay {
      guard case .int(let names)? = mode.recordedOptions?["names"] else {
        throw InputFile.Failure(
          message: "the recorded start event does not say how many names '\(corpus)' held")
      }
      backend = .corpus(path: corpus, names: names, nil)
    } else if let corpus {
      let names = try SearchCorpus.load(corpus)
      backend = .corpus(path: corpus, names: names.names.count, names)
    } else {
      backend = .builtIn
    }
    // A real backend has its own latency: the simulated one is then only what is asked for.
    let simulated = !runsProcesses || invocation.isGiven(Option.latency)
    // Virtual time promises the same output for the same command line: its default seed is 0.
    let seed =
      invocation[Option.seed].map { UInt64($0) }
      ?? mode.recordedSeed ?? (mode.isVirtual ? 0 : SearchLatency.randomSeed())
    latency = SearchLatency(
      latency: simulated ? invocation[Option.latency] : .zero,
      jitter: invocation[Option.jitter] ?? .zero, seed: seed)
    limit =
      picking && !invocation.isGiven(Option.limit) ? Self.pickerLimit : invocation[Option.limit]
  }

  /// The most results a picker keeps by default: a list to scroll through, not a page.
  static let pickerLimit = 100_000

  /// The source's settings for the `start` event; `--header` values redacted.
  var options: [(String, JSONValue)] {
    var pairs: [(String, JSONValue)]
    switch backend {
    case .builtIn:
      pairs = [("source", "builtin"), ("names", .int(SearchCorpus.builtIn.names.count))]
    case .corpus(let path, let names, _):
      pairs = [("source", "corpus"), ("corpus", .string(path)), ("names", .int(names))]
    case .url(let template, _, let headers, let limits):
      pairs =
        [("source", "url"), ("url", .string(URLAuthority.redactingSecrets(template.template)))]
        + Self.options(limits)
        + [("headers", .array(headers.map { .string(ExternalCommand.redacted(header: $0)) }))]
    case .exec(let template, _, let limits):
      pairs = [("source", "exec"), ("exec", .string(template.template))] + Self.options(limits)
    }
    return pairs + [
      ("latency_ms", .double(EventOutput.milliseconds(latency.latency))),
      ("jitter_ms", .double(EventOutput.milliseconds(latency.jitter))),
      ("seed", .int(Int(clamping: latency.seed))), ("limit", .int(limit)),
    ]
  }

  private static func options(_ limits: Limits) -> [(String, JSONValue)] {
    [
      ("timeout_ms", .double(EventOutput.milliseconds(limits.timeout))),
      ("kill_after_ms", .double(EventOutput.milliseconds(limits.killAfter))),
    ]
  }

  /// The fetch function the flow's request effect calls: wait the simulated delay on `clock`,
  /// then ask the backend. A cancelled request's process group is torn down before it returns.
  func fetcher(clock: any Clock<Duration>) -> @Sendable (SearchRequest) async throws -> SearchHits {
    let latency = self.latency
    let limit = self.limit
    let lookup: @Sendable (String) async throws -> SearchHits
    switch backend {
    case .builtIn:
      lookup = { SearchCorpus.builtIn.search($0, limit: limit) }
    case .corpus(_, _, let corpus):
      // Without the names (a replay) no search runs: the recorded answers are applied instead.
      lookup = { corpus?.search($0, limit: limit) ?? SearchHits(items: [], total: 0) }
    case .url(let template, let curl, let headers, let limits):
      lookup = { query in
        let url = template.url(for: query)
        let request = ExternalCommand.CurlRequest(
          curl: curl, url: url, headers: headers, timeout: limits.timeout,
          killAfter: limits.killAfter)
        let names = try SearchURLTemplate.decode(try await request.body(), from: url)
        return SearchHits(items: Array(names.prefix(limit)), total: names.count)
      }
    case .exec(let template, let environment, let limits):
      lookup = { query in
        // An environment variable cannot hold NUL: the query would end there.
        guard !query.utf8.contains(0) else {
          throw LoadFailure("a query with a NUL character cannot be passed to a command")
        }
        var command = ExternalCommand.shell(template.command, killAfter: limits.killAfter)
        command.environment = template.environment(for: query, base: environment)
        // Exit status 1 with nothing printed is grep's and rg's "no match": no results.
        let stdout = try await ExternalCommand.output(
          of: command, what: "command", timeout: limits.timeout, nothingFound: 1)
        return SearchExecTemplate.results(stdout, limit: limit)
      }
    }
    return { request in
      let delay = latency.delay(forRequest: request.revision)
      if delay > .zero { try await clock.sleep(for: delay) }
      return try await lookup(request.query)
    }
  }
}
