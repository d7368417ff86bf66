import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What hostile input cannot do to a run of the built `loadctl`: a query is never run as shell
/// code (`search --exec`), no byte a command, a file, curl or stdin produced reaches the
/// terminal as a control character, and no `--header` value or URL credential shows in output,
/// in a trace, or on curl's command line.
@Suite(.processSlots) struct ExecHardeningEndToEndTests {
  /// A `--timeout` no request reaches before the harness's failsafe.
  static let noTimeout = ["--timeout", "600s"]

  // MARK: A query is data, never code

  /// Templates where the shell reads the text of the command line again: a here-document's
  /// body. `MARKER` becomes a path in a scratch directory.
  static let reevaluatingTemplates: [(String, String)] = [
    ("cat <<EOF\n{query}\nEOF", "$(touch MARKER)x"),
    ("cat <<EOF\n{query}\nEOF", "`touch MARKER`"),
  ]

  @Test(arguments: reevaluatingTemplates)
  func aQueryIsNeverRunWhereTheShellReadsTextAgain(template: String, pattern: String)
    async throws
  {
    let scratch = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let marker = scratch + "/marker"
    let query = pattern.replacingOccurrences(of: "MARKER", with: marker)
    let outcome = try await LoadctlProcess.run(
      ["search", "--json", "--debounce", "0", "--exec", template] + Self.noTimeout + ["--", query])
    #expect(!FileManager.default.fileExists(atPath: marker), "never executed\n\(outcome)")
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    let end = try #require(try await SearchEvents.checked(outcome.stdout).end)
    #expect(end.strings(at: "state.items").first?.contains(query) == true, "\(outcome)")
  }

  @Test func theQueryIsInTheCommandsEnvironment() async throws {
    let query = #"it's "$HOME" $(id) `id` \ *"#
    let outcome = try await LoadctlProcess.run(
      [
        "search", "--json", "--debounce", "0", "--exec",
        #"sh -c 'printf "%s\n" "$LOADCTL_QUERY"'; printf '%s\n' {query}"#,
      ] + Self.noTimeout + ["--", query])
    #expect(outcome.termination == .exited(0), "\(outcome.stderr)")
    let end = try #require(try await SearchEvents.checked(outcome.stdout).end)
    #expect(end.strings(at: "state.items") == [query, query])
  }

  // MARK: A command's bytes never drive the terminal

  /// Bytes a terminal acts on: OSC (sets the title), ESC [2J (clears the screen), BEL, CR (back
  /// to the start of the line), CSI as the one C1 character U+009B.
  static let hostileOutput = #"\033]0;pwned\007\033[2J\rSPOOF\302\2331m"#
  /// The same, as text output must show it.
  static let hostileEscaped = #"\u{1B}]0;pwned\u{7}\u{1B}[2J\rSPOOF\u{9B}1m"#

  /// An `--exec` template that prints ``hostileOutput``, and the exit status of the run.
  static let hostileCommands: [(String, Int32)] = [
    ("printf '\(hostileOutput)\\n'; : {query}", 0),
    ("printf 'oops \(hostileOutput)\\n' >&2; exit 3; : {query}", 1),
  ]

  @Test(arguments: hostileCommands)
  func searchTextEscapesWhatTheCommandPrinted(template: String, status: Int32) async throws {
    let outcome = try await LoadctlProcess.run(
      ["search", "--no-color", "--debounce", "0", "--exec", template] + Self.noTimeout + ["q"])
    #expect(outcome.termination == .exited(status), "\(outcome)")
    expectNoControls(outcome)
    let last = try #require(outcome.stdout.last)
    #expect(last.contains(Self.hostileEscaped), "\(last)")
  }

  @Test func jsonEscapesWhatTheCommandPrinted() async throws {
    let loadctl = try LoadctlProcess.start(
      [
        "search", "--json", "--debounce", "0", "--exec",
        "printf '\(Self.hostileOutput)\\n'; : {query}",
      ] + Self.noTimeout + ["q"])
    #expect(try await loadctl.waitForExit() == .exited(0))
    let bytes = loadctl.stdoutBytes
    #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !bytes.contains(0x0D))
    #expect(loadctl.stdoutText.contains(#"\u001b]0;pwned\u0007\u001b[2J\rSPOOF"#))
    let end = try #require(try await SearchEvents.checked(loadctl.stdoutLines).end)
    #expect(end.strings(at: "state.items") == ["\u{1B}]0;pwned\u{7}\u{1B}[2J\rSPOOF\u{9B}1m"])
  }

  @Test func aQueryFromStdinIsEscapedInText() async throws {
    let outcome = try await LoadctlProcess.run(
      ["search", "--no-color", "--debounce", "0", "--latency", "0", "--input", "-"],
      stdin: .text(#""\u001b]0;pwned\u0007\u009b2J\r""# + "\n"))
    #expect(outcome.termination == .exited(0), "\(outcome)")
    expectNoControls(outcome)
    #expect(outcome.stdout.last?.contains(#""\u001b]0;pwned\u0007\u009b2J\r""#) == true)
  }

  /// A profile whose name, keys and values hold control characters, and where it comes from.
  static let hostileProfile =
    #"{"name":"\u001b]0;pwned\u0007\u001b[2J\rSPOOF","\u009b1mkey":"a\u0000b","n":["\u001b"]}"#

  @Test(arguments: ["file", "exec"])
  func profileTextEscapesTheProfile(source: String) async throws {
    let scratch = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let path = scratch + "/profile.json"
    try Self.hostileProfile.write(toFile: path, atomically: true, encoding: .utf8)
    let options = source == "file" ? ["--file", "-"] : ["--exec", "cat '\(path)'"]
    let outcome = try await LoadctlProcess.run(
      ["profile", "--no-color"] + options, stdin: .file(path))
    #expect(outcome.termination == .exited(0), "\(outcome)")
    expectNoControls(outcome)
    let shown =
      #"loaded(name: \u{1B}]0;pwned\u{7}\u{1B}[2J\rSPOOF, \u{9B}1mkey: a\0b, n: ["\u001b"])"#
    #expect(outcome.stdout.last?.hasSuffix("  profile  \(shown)") == true, "\(outcome)")
  }

  @Test func profileTextEscapesTheFailure() async throws {
    let outcome = try await LoadctlProcess.run(
      [
        "profile", "--no-color", "--exec", "printf 'oops \(Self.hostileOutput)\\n' >&2; exit 3",
      ] + Self.noTimeout)
    #expect(outcome.termination == .exited(1), "\(outcome)")
    expectNoControls(outcome)
    #expect(
      outcome.stdout.last?.hasSuffix(
        "  profile  failed(command failed (exit status 3): oops \(Self.hostileEscaped))  (failed)")
        == true, "\(outcome)")
  }

  // MARK: Secrets never appear in output or on a command line

  @Test(arguments: ["search", "profile"])
  func headerValuesAreRedactedInEveryOutput(command: String) async throws {
    let scratch = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let headers = ["--header", "Authorization: Bearer S3CRET", "--header", "X-Key:S3CRET"]
    // Nothing listens on port 1: the request fails at once, after the start event. A query
    // parameter named as a secret is redacted as a header value is.
    let url =
      command == "search"
      ? "http://127.0.0.1:1/s?q={query}&access_token=S3CRET"
      : "http://127.0.0.1:1/p?v=2&api_key=S3CRET"
    let shown =
      command == "search"
      ? "http://127.0.0.1:1/s?q={query}&access_token=<redacted>"
      : "http://127.0.0.1:1/p?v=2&api_key=<redacted>"
    let query = command == "search" ? ["q"] : []
    for json in [true, false] {
      let (trace, recording) = (scratch + "/trace-\(json).json", scratch + "/rec-\(json).jsonl")
      let outcome = try await LoadctlProcess.run(
        [command, "--url", url, "--trace", trace, "--timeline", "--record", recording]
          + (json ? ["--json"] : []) + headers + Self.noTimeout + query)
      #expect(outcome.termination == .exited(1), "\(outcome)")
      let everything = outcome.stdout.joined(separator: "\n") + outcome.stderr
      #expect(!everything.contains("S3CRET"), "\(outcome)")
      let traced = try String(contentsOfFile: trace, encoding: .utf8)
      #expect(!traced.contains("S3CRET"), "\(traced)")
      #expect(traced.contains("Authorization: <redacted>"), "\(traced)")
      let recorded = try String(contentsOfFile: recording, encoding: .utf8)
      #expect(!recorded.contains("S3CRET"), "\(recorded)")
      // The redacted command line still replays the run as it printed it.
      let replay = try await LoadctlProcess.run(["replay", "--check", recording])
      #expect(replay.termination == .exited(0), "\(replay)")
      if json {
        let start = try JSONEvent(parsing: try #require(outcome.stdout.first))
        #expect(
          start.value(at: "options.headers") as? [String]
            == ["Authorization: <redacted>", "X-Key: <redacted>"])
        #expect(start.value(at: "options.url") as? String == shown, "\(start)")
      }
    }
  }

  @Test(arguments: [
    ["profile", "--url", "https://me:S3CRET@example.com/me"],
    ["profile", "--json", "--url", "https://S3CRET@example.com/me"],
    ["profile", "--url", "ftp://me:S3CRET@example.com/me"],
    ["search", "--url", "https://me:S3CRET@example.com/s?q={query}", "q"],
    ["search", "--json", "--url", "http://h/{query}", "--header", "Bearer S3CRET", "q"],
    ["profile", "--url", "http://h/", "--header", "Authorization Bearer S3CRET:x"],
    ["profile", "--url", "http://h/", "--header", "Authorization: S3CRET\r\nX: y"],
  ])
  func aRefusedSecretIsNotEchoed(arguments: [String]) async throws {
    try await expectNoSecretEchoed(arguments)
  }

  /// The parser's own check of a URL's shape (`ValueValidator`) does not quote credentials.
  @Test func aURLOfTheWrongShapeIsNotEchoedWithItsCredentials() async throws {
    try await expectNoSecretEchoed(["profile", "--url", "http://me:S3CRET@/me"])
  }

  /// A URL too malformed for the authority to follow `://` (`http:/…`, `http:///…`, no scheme,
  /// a `--url` template) still has its userinfo redacted, on stderr and in the `error` event.
  @Test(arguments: [
    ["profile", "--url", "http:/user:S3CRET@127.0.0.1:18081/profile"],
    ["profile", "--url", "http:///user:S3CRET@127.0.0.1:18081/profile"],
    ["profile", "--url", "user:S3CRET@127.0.0.1:18081/profile"],
    ["search", "--url", "http:/u:S3CRET@h/?q={query}", "x"],
    ["profile", "http:/user:S3CRET@127.0.0.1:18081/profile"],
  ])
  func aMalformedURLIsNotEchoedWithItsCredentials(arguments: [String]) async throws {
    for json in [false, true] {
      let outcome = try await LoadctlProcess.run(arguments + (json ? ["--json"] : []))
      #expect(outcome.termination == .exited(64), "\(outcome)")
      #expect(!outcome.stderr.contains("S3CRET"), "\(outcome.stderr)")
      #expect(outcome.stderr.hasPrefix("Error: "), "\(outcome.stderr)")
      #expect(outcome.stderr.contains("<redacted>@"), "\(outcome.stderr)")
      #expect(outcome.stdout.allSatisfy { !$0.contains("S3CRET") }, "\(outcome.stdout)")
      if json {
        let events = try JSONLines.parse(outcome.stdout)
        #expect(events.map(\.event) == ["error"])
        #expect(events.first?.string("message")?.contains("<redacted>@") == true)
      } else {
        #expect(outcome.stdout.isEmpty)
      }
    }
  }

  /// Runs `arguments`, a usage error because of a secret, and expects the secret nowhere in the
  /// output and a URL's userinfo shown as `<redacted>`.
  private func expectNoSecretEchoed(_ arguments: [String]) async throws {
    let outcome = try await LoadctlProcess.run(arguments)
    #expect(outcome.termination == .exited(64), "\(outcome)")
    #expect(outcome.stderr.hasPrefix("Error: "), "\(outcome)")
    let everything = outcome.stdout.joined(separator: "\n") + outcome.stderr
    #expect(!everything.contains("S3CRET"), "\(outcome)")
    if let url = arguments.first(where: { $0.contains("@") }) {
      let redacted = url.replacingOccurrences(
        of: #"//[^@]*@"#, with: "//<redacted>@", options: .regularExpression)
      #expect(outcome.stderr.contains(redacted.replacingOccurrences(of: "{query}", with: "")))
    }
  }

  /// Neither the headers nor the URL, whose query may hold a token, are on curl's command line.
  @Test(arguments: [
    ["profile", "--url", "/profile?hold&token=T0KEN"],
    ["search", "--debounce", "0", "--url", "/search?hold&token=T0KEN&q={query}", "q"],
  ])
  func curlGetsTheHeadersButNeverOnItsCommandLine(arguments: [String]) async throws {
    let server = try await HeaderServer.start()
    defer { server.stop() }
    let loadctl = try LoadctlProcess.start(
      arguments.map { $0.hasPrefix("/") ? server.url($0) : $0 } + [
        "--json", "--header", "Authorization: Bearer S3CRET", "--header",
        #"X-Quoted: say "hi" \ and = too"#,
      ] + Self.noTimeout)
    let request = try await server.nextRequest()
    #expect(request["authorization"] == "Bearer S3CRET")
    #expect(request["x-quoted"] == #"say "hi" \ and = too"#)
    // The server holds its answer, so curl is running now.
    let curl = try await Polling.until("curl among loadctl's descendants") {
      descendants(of: loadctl.pid).first { command(of: $0) == "curl" }
    }
    let arguments = try #require(commandLine(of: curl), "curl's /proc/\(curl)/cmdline")
    #expect(!arguments.isEmpty && !arguments.contains { $0.contains("S3CRET") }, "\(arguments)")
    #expect(!arguments.contains { $0.contains("T0KEN") || $0.contains("127.0.0.1") })
    try server.release()
    #expect(try await loadctl.waitForExit() == .exited(0), "\(loadctl.transcript)")
    #expect(!loadctl.stdoutText.contains("S3CRET"))
  }

  /// With headers, a redirect is not followed: curl would send them to the host it names. The
  /// run fails with a line that says so, and the place the redirect names gets no request.
  /// curl runs with `-q`: a `~/.curlrc` does not change loadctl's requests (it added its header).
  @Test func aCurlrcIsNotRead() async throws {
    let server = try await HeaderServer.start()
    defer { server.stop() }
    let home = try ChildProcesses.scratch()
    defer { try? FileManager.default.removeItem(atPath: home) }
    try #"header = "X-From-Curlrc: 1""#.write(
      toFile: home + "/.curlrc", atomically: true, encoding: .utf8)
    let outcome = try await LoadctlProcess.run(
      ["profile", "--json", "--url", server.url("/profile")] + Self.noTimeout,
      environment: ["HOME": home, "CURL_HOME": home])
    #expect(outcome.termination == .exited(0), "\(outcome)")
    let request = try await server.nextRequest()
    #expect(request["x-from-curlrc"] == nil, "\(request)")
  }

  @Test func aRedirectIsNotFollowedWithHeaders() async throws {
    let server = try await HeaderServer.start()
    defer { server.stop() }
    let outcome = try await LoadctlProcess.run(
      [
        "profile", "--json", "--url", server.url("/redirect?to=") + server.url("/profile"),
        "--header", "X-Api-Key: S3CRET",
      ] + Self.noTimeout)
    #expect(outcome.termination == .exited(1), "\(outcome)")
    let message = try JSONLines.parse(outcome.stdout).last?.value(at: "state.message") as? String
    #expect(message?.contains("redirect") == true, "\(outcome)")
    let first = try await server.nextRequest()
    #expect(first["x-api-key"] == "S3CRET")
    let unfollowed = try await LoadctlProcess.run(
      ["profile", "--json", "--url", server.url("/profile")] + Self.noTimeout)
    #expect(unfollowed.termination == .exited(0))
    // The next request the server saw is this one, without the header: the redirect's was not.
    let second = try await server.nextRequest()
    #expect(second["x-api-key"] == nil, "\(second)")
  }

  @Test func curlsBodyIsEscapedInText() async throws {
    let server = try await HeaderServer.start()
    defer { server.stop() }
    let outcome = try await LoadctlProcess.run(
      ["search", "--no-color", "--debounce", "0", "--url", server.url("/controls?q={query}")]
        + Self.noTimeout + ["q"])
    #expect(outcome.termination == .exited(0), "\(outcome)")
    expectNoControls(outcome)
    #expect(outcome.stdout.last?.contains(Self.hostileEscaped) == true, "\(outcome)")
  }
}

/// Expects that no line of stdout or stderr holds a C0 control, DEL or a C1 control.
private func expectNoControls(
  _ outcome: LoadctlProcess.Outcome, sourceLocation: SourceLocation = #_sourceLocation
) {
  let lines = outcome.stdout + outcome.stderr.split(separator: "\n").map(String.init)
  let bad = lines.filter { line in
    line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
  }
  #expect(bad == [], "control characters reached the terminal", sourceLocation: sourceLocation)
}

/// The pids of `pid`'s descendants, read from `/proc`.
private func descendants(of pid: Int32) -> [Int32] {
  let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  let parents: [(Int32, Int32)] = all.compactMap { name in
    guard let child = Int32(name),
      let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after "pid (comm)": state, ppid, …
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 1, let parent = Int32(fields[1]) else { return nil }
    return (child, parent)
  }
  var found: [Int32] = []
  var frontier = [pid]
  while let next = frontier.popLast() {
    let children = parents.filter { $0.1 == next }.map(\.0)
    found += children
    frontier += children
  }
  return found
}

/// The name of the program `pid` runs (`/proc/PID/comm`).
private func command(of pid: Int32) -> String? {
  (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The arguments of `pid` (`/proc/PID/cmdline`), as every local user can read them.
private func commandLine(of pid: Int32) -> [String]? {
  guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
  return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

/// A local HTTP server that prints the headers of each request it gets and can hold its
/// answers until the test releases them.
///
/// `Fixtures/http_server.py` records no headers, so it cannot show that a header arrived. This
/// one prints a JSON line per request (`{"path": …, "headers": {lowercased name: value}}`);
/// a request whose query has `hold` waits for a line on the server's stdin. `/profile`
/// answers a profile, `/search` one name, `/controls` a name full of control characters, and
/// `/redirect?to=URL` a 302 to URL.
private final class HeaderServer: Sendable {
  static let script = #"""
    import json, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import urlsplit

    released = threading.Event()
    def wait_for_release():
        sys.stdin.readline()
        released.set()
    threading.Thread(target=wait_for_release, daemon=True).start()
    BODIES = {
        "/profile": {"name": "Taylor"},
        "/search": ["hit"],
        "/controls": ["\x1b]0;pwned\x07\x1b[2J\rSPOOF\u009b1m"],
    }

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_GET(self):
            parts = urlsplit(self.path)
            headers = {key.lower(): value for key, value in self.headers.items()}
            print(json.dumps({"path": parts.path, "headers": headers}), flush=True)
            if "hold" in parts.query:
                released.wait()
            if parts.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", parts.query.partition("to=")[2])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = json.dumps(BODIES.get(parts.path, {})).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """#

  private let process: LoadctlProcess
  private let port: Int

  private init(process: LoadctlProcess, port: Int) {
    self.process = process
    self.port = port
  }

  /// Starts the server and waits until it prints its port.
  static func start() async throws -> HeaderServer {
    let process = try LoadctlProcess.start(
      executable: SchemaValidator.python, arguments: ["-u", "-c", script], stdin: .pipe)
    let line = try await process.waitForLine { Int($0) != nil }
    guard let port = Int(line) else { throw HarnessError.serverFailed("bad port line \(line)") }
    return HeaderServer(process: process, port: port)
  }

  /// `http://127.0.0.1:PORT` followed by `pathAndQuery`.
  func url(_ pathAndQuery: String) -> String { "http://127.0.0.1:\(port)\(pathAndQuery)" }

  /// Waits for the next request and returns its headers, names in lowercase.
  func nextRequest() async throws -> [String: String] {
    let line = try await process.waitForLine { $0.hasPrefix("{") }
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    return object?["headers"] as? [String: String] ?? [:]
  }

  /// Lets every held request, and every later one, be answered.
  func release() throws { try process.write(toStdin: "go\n") }

  func stop() { process.send(signal: SIGKILL) }
}
