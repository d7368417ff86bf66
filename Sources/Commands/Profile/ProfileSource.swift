import LoadctlCore

/// Where `profile` loads from: the demo API, a JSON file, or a URL.
package enum ProfileSource: Sendable {
  case demo(latency: Duration, failure: String?)
  /// `preloaded` is the profile read from standard input (`--file -`) at start: stdin can be
  /// read only once, so each load returns it instead of reading again.
  case file(path: String, latency: Duration, preloaded: Profile?)
  case url(String, timeout: Duration)

  /// Picks and validates the source from the options.
  /// - Throws: `UsageError` for conflicting or invalid options, `InputFile.Failure` or
  ///   `LoadFailure` for a file that cannot be a profile (exit 65).
  init(_ invocation: Invocation) throws {
    let latency = invocation.duration("latency")
    let file = invocation.string("file")
    let url = invocation.string("url")
    let fail = invocation.string("fail")
    if file != nil, url != nil {
      throw UsageError.invalidValue(
        "'--file' and '--url' cannot be used together", command: "profile")
    }
    if fail != nil, file != nil || url != nil {
      throw UsageError.invalidValue(
        "'--fail' only applies to the demo API, not to '--file' or '--url'", command: "profile")
    }
    if file == "-", invocation.string("input") == "-" {
      throw UsageError.invalidValue(
        "'--file -' and '--input -' cannot both read standard input", command: "profile")
    }
    if let file {
      let profile = try ProfileSource.readProfile(file)
      // The table's 1s default is the demo API's; a file loads at once unless asked otherwise.
      let fileLatency = invocation.isGiven("latency") ? latency ?? .zero : .zero
      self = .file(path: file, latency: fileLatency, preloaded: file == "-" ? profile : nil)
    } else if let url {
      if invocation.string("clock") == "virtual" {
        throw UsageError.invalidValue(
          "'--url' cannot be used with '--clock virtual': network time is not virtual",
          command: "profile")
      }
      if let problem = HTTPFetcher.validate(url) {
        throw UsageError.invalidValue("\(problem) for '--url'", command: "profile")
      }
      self = .url(url, timeout: invocation.duration("timeout") ?? .seconds(10))
    } else {
      self = .demo(latency: latency ?? .seconds(1), failure: fail)
    }
  }

  /// The source's settings for the `start` event.
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
    case .url(let url, let timeout):
      [
        ("source", "url"), ("url", .string(url)),
        ("timeout_ms", .double(EventOutput.milliseconds(timeout))),
      ]
    }
  }

  /// The fetch function the flow's effect calls.
  func fetcher(clock: any Clock<Duration>) -> @Sendable () async throws -> Profile {
    switch self {
    case .demo(let latency, let failure):
      return {
        try await clock.sleep(for: latency)
        if let failure { throw LoadFailure(failure) }
        return Profile(name: "Taylor")
      }
    case .file(let path, let latency, let preloaded):
      return {
        if latency > .zero { try await clock.sleep(for: latency) }
        if let preloaded { return preloaded }
        do {
          return try ProfileSource.readProfile(path)
        } catch {
          throw LoadFailure("\(error)")
        }
      }
    case .url(let url, let timeout):
      let http = HTTPFetcher(timeout: timeout)
      return {
        let body = try await http.get(url)
        let value: JSONValue
        do throws(JSONParser.Failure) {
          value = try JSONParser.parse(bytes: body)
        } catch {
          throw LoadFailure("response from \(url) is not JSON: \(error)")
        }
        return try Profile.decode(value)
      }
    }
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
