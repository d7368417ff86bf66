import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where `profile` loads from: the demo API, a JSON file, a command's stdout (`--exec`), or a URL
/// (`--url`, fetched by curl).
package enum ProfileSource: Sendable {
  case demo(latency: Duration, failure: String?)
  /// `preloaded` is the profile read at start from what can be read only once (`--file -`, a
  /// pipe, a FIFO, `<(…)`): each load returns it instead of reading again. A regular file is
  /// read again by each load.
  case file(path: String, latency: Duration, preloaded: Profile?)
  /// `--exec CMD`: each load runs it and decodes its stdout; `--timeout` tears it down.
  case command(Subprocess, timeout: Duration, options: [(String, JSONValue)])
  /// `--url URL`: each load fetches it with curl and decodes the body.
  case url(ExternalCommand.CurlRequest, options: [(String, JSONValue)])

  /// Picks and validates the source from the options.
  /// - Throws: `UsageError` for conflicting or invalid options, `ExternalCommand.Unavailable` when curl is
  ///   missing, `InputFile.Failure` or `LoadFailure` for a file that cannot be a profile (65).
  init(_ invocation: Invocation, mode: RunMode, environment: [String: String]) throws {
    typealias Option = ProfileCommand.Option
    let latency = invocation[Option.latency]
    let file = invocation[Option.file]
    let url = invocation[Option.url]
    let exec = invocation[Option.exec]
    let fail = invocation[Option.fail]
    let given = [("--file", file), ("--url", url), ("--exec", exec)].filter { $0.1 != nil }
    if given.count > 1 {
      throw UsageError.invalidValue(
        "'\(given[0].0)' and '\(given[1].0)' cannot be used together", command: "profile")
    }
    if let fail, fail.allSatisfy(\.isWhitespace) {
      throw UsageError.invalidValue(
        "'--fail' needs a message, the failure the demo API reports", command: "profile")
    }
    if fail != nil, !given.isEmpty {
      throw UsageError.invalidValue(
        "'--fail' only applies to the demo API, not to '\(given[0].0)'", command: "profile")
    }
    if file == "-", invocation[Option.input] == "-" {
      throw UsageError.invalidValue(
        "'--file -' and '--input -' cannot both read standard input", command: "profile")
    }
    if url == nil, exec == nil,
      let option = [Option.timeout, Option.killAfter].first(where: invocation.isGiven)
    {
      throw UsageError.invalidValue(
        "'\(option.spec.longForm)' only applies to '--url' and '--exec'", command: "profile")
    }
    let headers = try ExternalCommand.checkedOptions(
      headers: invocation[Option.header], command: invocation.command, mode: mode,
      given: given.first?.0, runsProcess: url != nil || exec != nil)
    let timeout = invocation[Option.timeout]
    let killAfter = invocation[Option.killAfter]
    let times: [(String, JSONValue)] = [
      ("timeout_ms", .double(EventOutput.milliseconds(timeout))),
      ("kill_after_ms", .double(EventOutput.milliseconds(killAfter))),
    ]
    if let file {
      // A replay reads no file: the load's result comes from the recording.
      let profile = mode.isReplay ? nil : try ProfileSource.readProfile(file)
      // The table's 1s default is the demo API's; a file loads at once unless asked otherwise.
      let fileLatency = invocation.isGiven(Option.latency) ? latency : .zero
      self = .file(
        path: file, latency: fileLatency,
        preloaded: file == "-" || !ProfileSource.isRegularFile(file) ? profile : nil)
    } else if let url {
      if let problem = ExternalCommand.urlProblem(url) {
        throw UsageError.invalidValue("\(problem) for '--url'", command: "profile")
      }
      let curl = try ExternalCommand.curl(environment: environment, task: "load", mode: mode)
      let request = ExternalCommand.CurlRequest(
        curl: curl, url: url, headers: headers, timeout: timeout, killAfter: killAfter)
      let shown = headers.map { JSONValue.string(ExternalCommand.redacted(header: $0)) }
      self = .url(
        request,
        options: [("source", "url"), ("url", .string(URLAuthority.redactingSecrets(url)))] + times
          + [("headers", .array(shown))])
    } else if let exec {
      self = .command(
        ExternalCommand.shell(exec, killAfter: killAfter), timeout: timeout,
        options: [("source", "exec"), ("exec", .string(exec))] + times)
    } else {
      self = .demo(latency: latency, failure: fail)
    }
  }

  /// Whether `path` names a regular file (after symlinks), which each load may read again.
  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }

  /// The source's settings for the `start` event; `--header` values redacted.
  var options: [(String, JSONValue)] {
    switch self {
    case .demo(let latency, let failure):
      [
        ("source", "demo"), ("latency_ms", .double(EventOutput.milliseconds(latency))),
        ("fail", failure.map(JSONValue.string) ?? .null),
      ]
    case .file(let path, let latency, _):
      [
        ("source", "file"), ("file", .string(path)),
        ("latency_ms", .double(EventOutput.milliseconds(latency))),
      ]
    case .command(_, _, let options), .url(_, let options):
      options
    }
  }

  /// The fetch function the flow's effect calls.
  func fetcher(clock: any Clock<Duration>) -> ProfileFlow.Fetch {
    switch self {
    case .demo(let latency, let failure):
      return { _ in
        try await clock.sleep(for: latency)
        if let failure { throw LoadFailure(failure) }
        return Profile(name: "Taylor")
      }
    case .file(let path, let latency, let preloaded):
      return { _ in
        if latency > .zero { try await clock.sleep(for: latency) }
        if let preloaded { return preloaded }
        do {
          return try ProfileSource.readProfile(path)
        } catch {
          throw LoadFailure("\(error)")
        }
      }
    case .command(let command, let timeout, _):
      return { show in
        let body = try await ExternalCommand.output(
          of: command, what: "command", timeout: timeout, stderr: show)
        return try ProfileSource.decode(body, from: "command")
      }
    case .url(let request, _):
      return { show in try ProfileSource.decode(try await request.body(stderr: show), from: "curl")
      }
    }
  }

  /// Reads the profile in what `what` (`command`, `curl`) printed.
  static func decode(_ body: [UInt8], from what: String) throws(LoadFailure) -> Profile {
    let value: JSONValue
    do throws(JSONParser.Failure) {
      value = try JSONParser.parse(bytes: body)
    } catch {
      throw LoadFailure("\(what) output is not JSON: \(error)")
    }
    return try Profile.decode(value)
  }

  /// Reads and decodes a profile file.
  static func readProfile(_ path: String) throws -> Profile {
    let bytes = try InputFile.readAll(path, option: "--file", limit: 1024 * 1024)
    let value: JSONValue
    do throws(JSONParser.Failure) {
      value = try JSONParser.parse(bytes: bytes)
    } catch {
      throw LoadFailure("'\(path)' is not valid JSON: \(error)")
    }
    do throws(LoadFailure) {
      return try Profile.decode(value)
    } catch {
      throw LoadFailure("'\(path)': \(error.message)")
    }
  }
}
