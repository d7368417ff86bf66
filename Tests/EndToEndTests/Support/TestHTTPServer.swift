import Foundation

/// A local HTTP server (`Fixtures/http_server.py`) that loadctl's network flows can talk to.
///
/// CI has no network, and a real server could not show what loadctl did to a connection. This
/// one listens on 127.0.0.1, answers the routes documented in the script, and records each
/// request and each connection a client dropped, so a test can prove that cancelling a flow
/// really closed its request rather than just ignoring the answer.
///
/// ```swift
/// try await TestHTTPServer.withServer { server in
///   let loadctl = try LoadctlProcess.start(["profile", "--url", server.urlString("/slow")])
///   …
///   try await server.waitForLog(event: "dropped", path: "/slow")
/// }
/// ```
final class TestHTTPServer: Sendable {
  /// One record of the server's `/log`.
  struct LogRecord: Decodable, Equatable, Sendable {
    let event: String
    let path: String?
    let q: String?
  }

  /// The port the server listens on.
  let port: Int
  private let process: LoadctlProcess

  private init(port: Int, process: LoadctlProcess) {
    self.port = port
    self.process = process
  }

  /// Starts the server and waits until it prints its port.
  static func start() async throws -> TestHTTPServer {
    let process = try LoadctlProcess.start(
      executable: SchemaValidator.python, arguments: ["-u", try fixture().path])
    let line = try await process.waitForLine { Int($0) != nil }
    guard let port = Int(line) else { throw HarnessError.serverFailed("bad port line \(line)") }
    return TestHTTPServer(port: port, process: process)
  }

  /// Starts a server, runs `body` with it, and stops it however `body` ends.
  static func withServer<Result: Sendable>(
    _ body: (TestHTTPServer) async throws -> Result
  ) async throws -> Result {
    let server = try await start()
    do {
      let result = try await body(server)
      try await server.stop()
      return result
    } catch {
      try? await server.stop()
      throw error
    }
  }

  /// Stops the server (SIGTERM) and waits for it to exit.
  func stop() async throws {
    process.send(signal: SIGTERM)
    try await process.waitForExit()
  }

  /// The script, from the test bundle's resources or, failing that, from the source tree.
  static func fixture(sourceFile: String = #filePath) throws -> URL {
    let bundled = Bundle.module.url(forResource: "Fixtures", withExtension: nil)?
      .appendingPathComponent("http_server.py")
    let source = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/http_server.py")
    for candidate in [bundled, source].compactMap({ $0 })
    where FileManager.default.fileExists(atPath: candidate.path) {
      return candidate
    }
    throw HarnessError.serverFailed(
      "Fixtures/http_server.py is in neither the bundle nor \(source)")
  }

  // MARK: Addresses

  /// `http://127.0.0.1:PORT` followed by `pathAndQuery`, such as `/profile?delay=200`.
  func urlString(_ pathAndQuery: String) -> String {
    "http://127.0.0.1:\(port)\(pathAndQuery)"
  }

  /// `urlString` as a `URL`.
  func url(_ pathAndQuery: String) throws -> URL {
    guard let url = URL(string: urlString(pathAndQuery)) else {
      throw HarnessError.serverFailed("not a valid URL path: \(pathAndQuery)")
    }
    return url
  }

  // MARK: Requests

  /// Fetches `pathAndQuery` with `curl` and returns the status and the body as text.
  ///
  /// curl, the same client loadctl's `--url` runs, rather than FoundationNetworking's session,
  /// whose requests wait on the test process's own (possibly busy) threads.
  func get(_ pathAndQuery: String, timeout: Duration = LoadctlProcess.defaultTimeout)
    async throws -> (status: Int, body: String)
  {
    let seconds = timeout.components.seconds + 1
    let outcome = try await LoadctlProcess.run(
      executable: "curl",
      arguments: Self.curlArguments(url: urlString(pathAndQuery), seconds: seconds)
        + ["-w", "\n%{http_code}"],
      timeout: timeout + .seconds(5))
    guard outcome.termination == .exited(0), let statusLine = outcome.stdout.last,
      let status = Int(statusLine)
    else {
      throw HarnessError.serverFailed(
        "curl \(pathAndQuery) ended \(outcome.termination): \(outcome.stderr)")
    }
    return (status, outcome.stdout.dropLast().joined(separator: "\n"))
  }

  /// Starts `curl` on `pathAndQuery` and returns the running process, so that a test can drop
  /// the connection by ending it.
  func startRequest(_ pathAndQuery: String) throws -> LoadctlProcess {
    try LoadctlProcess.start(
      executable: "curl", arguments: Self.curlArguments(url: urlString(pathAndQuery), seconds: 600))
  }

  /// Quiet curl that never goes through a proxy and does not fail on an HTTP error status.
  private static func curlArguments(url: String, seconds: Int64) -> [String] {
    ["-sS", "--noproxy", "*", "--max-time", "\(seconds)", url]
  }

  /// Everything the server recorded so far.
  func log() async throws -> [LogRecord] {
    try decode(try await get("/log").body)
  }

  /// Waits until the server recorded an event with these fields, and returns it.
  ///
  /// The server holds the request open until such a record exists (a long poll), so this
  /// returns as soon as it happens; `timeout` is a failsafe.
  /// - Throws: `HarnessError` with the whole log when no such record appeared in time.
  @discardableResult
  func waitForLog(
    event: String, path: String? = nil, q: String? = nil,
    timeout: Duration = LoadctlProcess.defaultTimeout
  ) async throws -> LogRecord {
    var query = [URLQueryItem(name: "event", value: event)]
    if let path { query.append(URLQueryItem(name: "path", value: path)) }
    if let q { query.append(URLQueryItem(name: "q", value: q)) }
    let milliseconds =
      timeout.components.seconds * 1000
      + timeout.components.attoseconds / 1_000_000_000_000_000
    query.append(URLQueryItem(name: "wait_ms", value: "\(milliseconds)"))
    var components = URLComponents()
    components.queryItems = query
    let records = try decode(
      try await get("/log?\(components.percentEncodedQuery ?? "")", timeout: timeout).body)
    let wanted = { (record: LogRecord) in
      record.event == event && (path == nil || record.path == path) && (q == nil || record.q == q)
    }
    guard let found = records.first(where: wanted) else {
      let what = "event=\(event) path=\(path ?? "*") q=\(q ?? "*")"
      throw HarnessError.timedOut(
        "server log record \(what)", after: timeout,
        output: "server log:\n" + records.map { "  \($0)" }.joined(separator: "\n"))
    }
    return found
  }

  private func decode(_ body: String) throws -> [LogRecord] {
    try body.split(separator: "\n").map {
      try JSONDecoder().decode(LogRecord.self, from: Data($0.utf8))
    }
  }
}
