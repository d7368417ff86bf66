import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// Secrets stay out of output and off curl's command line: `--header` values are shown as
/// `Name: <redacted>`, a URL's userinfo as `<redacted>`, and curl reads its headers from a pipe.
@Suite struct ExternalCommandSecretTests {
  @Test(arguments: [
    ("https://me:pw@example.com/p?q=1", "https://<redacted>@example.com/p?q=1"),
    ("http://token@h", "http://<redacted>@h"),
    ("http://a@b@h:8080/x@y", "http://<redacted>@h:8080/x@y"),
    ("HTTP://u:p@[::1]:80/", "HTTP://<redacted>@[::1]:80/"),
    ("http://h/p@x", "http://h/p@x"), ("http://h?x=a@b", "http://h?x=a@b"),
    ("http://h#a@b", "http://h#a@b"), ("not a url @ all", "not a url @ all"),
  ])
  func aURLsUserinfoIsRedacted(url: String, shown: String) {
    #expect(URLAuthority.redactingUserinfo(url) == shown)
  }

  /// What an error quotes of text given as a URL: userinfo goes whatever the shape around it.
  @Test(arguments: [
    ("http:/user:pw@127.0.0.1:18081/profile", "http:/<redacted>@127.0.0.1:18081/profile"),
    ("http:///user:pw@127.0.0.1:18081/profile", "http:///<redacted>@127.0.0.1:18081/profile"),
    ("http:////u@h", "http:////<redacted>@h"), ("//u:pw@h/p", "//<redacted>@h/p"),
    ("http:/u:pw@h/?q={query}", "http:/<redacted>@h/?q={query}"),
    ("user:pw@host/p@x", "<redacted>@host/p@x"), ("token@host", "<redacted>@host"),
    ("http:u:pw@h", "<redacted>@h"), ("http:/a@b@h:1/x@y", "http:/<redacted>@h:1/x@y"),
    ("a@b://x", "<redacted>@b://x"), ("not a url @ all", "<redacted>@ all"),
    ("http:/h/p@x", "http:/h/p@x"), ("h?x=a@b", "h?x=a@b"), ("h#a@b", "h#a@b"),
    ("localhost:8080", "localhost:8080"), ("", ""), ("@", "<redacted>@"),
  ])
  func aMalformedURLsLikelyUserinfoIsRedacted(text: String, shown: String) {
    #expect(URLAuthority.redactingLikelyUserinfo(text) == shown)
  }

  /// On a URL shaped `scheme://…`, the two redactions agree.
  @Test(arguments: [
    "https://me:pw@example.com/p?q=1", "http://token@h", "http://a@b@h:8080/x@y",
    "HTTP://u:p@[::1]:80/", "http://h/p@x", "http://h?x=a@b", "http://h#a@b", "http://",
  ])
  func bothRedactionsAgreeOnAWellFormedURL(url: String) {
    #expect(URLAuthority.redactingLikelyUserinfo(url) == URLAuthority.redactingUserinfo(url))
  }

  @Test(arguments: [
    "http:/user:S3CRET@127.0.0.1:18081/profile", "http:///user:S3CRET@127.0.0.1:18081/profile",
    "user:S3CRET@h", "S3CRET@h", "http:S3CRET@h", "http:/u:S3CRET@h/?q={query}",
  ])
  func aURLOfTheWrongShapeIsQuotedWithoutItsCredentials(url: String) throws {
    let problem = try #require(ValueValidator.problem(with: url, kind: .url, name: "--url"))
    #expect(problem.hasPrefix("invalid URL '"), "\(problem)")
    #expect(problem.contains("<redacted>@"), "\(problem)")
    #expect(!problem.contains("S3CRET"), "\(problem)")
  }

  /// A URL typed without its option is quoted as an argument, without its credentials.
  @Test(arguments: [
    (["profile", "http:/u:S3CRET@h/"], "unexpected argument 'http:/<redacted>@h/'"),
    (["profile", "https://u:S3CRET@h/"], "unexpected argument 'https://<redacted>@h/'"),
    (["https://u:S3CRET@h/"], "unknown subcommand 'https://<redacted>@h/'"),
    (["help", "u:S3CRET@h"], "unknown subcommand '<redacted>@h'"),
  ])
  func aStrayURLIsQuotedWithoutItsCredentials(arguments: [String], message: String) {
    let error = #expect(throws: UsageError.self) {
      try parse(arguments, spec: CommandTable.program)
    }
    #expect(error?.message == message)
  }

  @Test(arguments: [
    ("https://me:S3CRET@h/", "credentials in URLs are not supported: 'https://<redacted>@h/'"),
    ("ftp://me:S3CRET@h/", "unsupported URL scheme 'ftp' in 'ftp://<redacted>@h/'"),
  ])
  func aRefusedURLIsShownWithoutItsCredentials(url: String, prefix: String) throws {
    let problem = try #require(ExternalCommand.urlProblem(url))
    #expect(problem.hasPrefix(prefix), "\(problem)")
    #expect(!problem.contains("S3CRET"))
    #expect(ExternalCommand.urlProblem("https://h/me@x") == nil)
  }

  /// A query or fragment parameter named as a secret is shown without its value; others, and
  /// an empty value, as they are.
  @Test(arguments: [
    ("https://h/p?q=swift&api_key=abc", "https://h/p?q=swift&api_key=<redacted>"),
    ("https://h/p?access_token=abc&q=1", "https://h/p?access_token=<redacted>&q=1"),
    (
      "https://h/?X-Amz-Signature=f00;X-Amz-Credential=a%2Fb",
      "https://h/?X-Amz-Signature=<redacted>;X-Amz-Credential=<redacted>"
    ),
    ("https://h/?key=a=b=c&token=", "https://h/?key=<redacted>&token="),
    ("https://h/cb#state=s&id_token=abc", "https://h/cb#state=s&id_token=<redacted>"),
    ("https://h/?q=1#access_token=abc", "https://h/?q=1#access_token=<redacted>"),
    ("https://h/?api%5Fkey=abc", "https://h/?api%5Fkey=<redacted>"),
    ("https://h/?api+key=abc&q=1", "https://h/?api+key=<redacted>&q=1"),
    ("https://h/?api%20key=abc", "https://h/?api%20key=<redacted>"),
    ("https://h/?tok%en=abc", "https://h/?tok%en=<redacted>"),
    ("https://h/?to%6Ben=abc", "https://h/?to%6Ben=<redacted>"),
    ("https://h/?x=1#Access%2DToken=abc", "https://h/?x=1#Access%2DToken=<redacted>"),
    ("https://h/?key%FF=abc", "https://h/?key%FF=<redacted>"),
    ("https://h/?monkey=1&key+word=2&a%25b=3", "https://h/?monkey=1&key+word=2&a%25b=3"),
    (
      "https://h/?PASSWORD=abc&author=me&keyword=k",
      "https://h/?PASSWORD=<redacted>&author=me&keyword=k"
    ),
    ("https://h/?q={query}&sig=x", "https://h/?q={query}&sig=<redacted>"),
    ("https://h/p", "https://h/p"), ("https://h/?token", "https://h/?token"),
    ("https://h/?a=1?token=2", "https://h/?a=1?token=2"),
  ])
  func aSecretParametersValueIsRedacted(url: String, shown: String) {
    #expect(URLAuthority.redactingSecretParameters(url) == shown)
    #expect(URLAuthority.redactingSecrets(url) == shown)
    // Redacting again changes nothing: a replay shows what the run showed.
    #expect(URLAuthority.redactingSecrets(shown) == shown)
  }

  /// A recording's command line redacts `--header` and `--url` values only: an `--exec`
  /// command is printed verbatim in `start`, and its replay must print it the same.
  @Test func aRecordedCommandLineRedactsOnlyHeaderAndURLValues() {
    let arguments = [
      "profile", "--url", "http://h/?token=S3CRET", "--url=http://h/?key=S3CRET", "--header",
      "Authorization: S3CRET", "--header=X-Key: S3CRET", "--exec",
      "curl -s 'http://me:pw@h/?token=abc' # keep", "--", "--url", "http://h/?token=abc",
    ]
    #expect(
      RecordedArguments.redacted(arguments) == [
        "profile", "--url", "http://h/?token=<redacted>", "--url=http://h/?key=<redacted>",
        "--header", "Authorization: <redacted>", "--header=X-Key: <redacted>", "--exec",
        "curl -s 'http://me:pw@h/?token=abc' # keep", "--", "--url", "http://h/?token=abc",
      ])
  }

  @Test func aHeaderIsShownByItsNameOnly() {
    #expect(
      ExternalCommand.redacted(header: "Authorization: Bearer x") == "Authorization: <redacted>")
    #expect(ExternalCommand.redacted(header: "X-Key:x:y") == "X-Key: <redacted>")
  }

  @Test(arguments: [
    "Bearer S3CRET", ": S3CRET", "Authorization Bearer S3CRET:x", "S3CRET\u{1}: x",
    "X: S3CRET\r\nEvil: y", "X: S3CRET\nEvil: y", "X: S3CRET\rEvil: y",
  ])
  func anInvalidHeaderIsRefusedWithoutItsValue(header: String) throws {
    let problem = try #require(ExternalCommand.headerProblem(header))
    #expect(!problem.contains("S3CRET"), "\(problem)")
  }

  @Test(arguments: ["Accept: application/json", "X-Empty:", #"X-Quoted: say "hi" \ there"#])
  func aWellFormedHeaderIsAccepted(header: String) {
    #expect(ExternalCommand.headerProblem(header) == nil)
  }

  /// curl's arguments hold neither a header nor the URL (whose query may carry a token), skip
  /// `.curlrc` (`-q`, which must come first), and refuse redirects when there are headers.
  @Test func curlsArgumentsNeverHoldAHeaderOrTheURL() {
    let plain = ExternalCommand.CurlRequest(
      curl: "/usr/bin/curl", url: "http://h/?token=T0KEN", headers: [],
      timeout: .milliseconds(2500), killAfter: .seconds(1))
    #expect(
      plain.arguments == ["-q", "-fsSL", "--globoff", "--max-time", "2.5", "--config", "-"])
    let request = ExternalCommand.CurlRequest(
      curl: "/usr/bin/curl", url: "http://h/", headers: ["Authorization: Bearer S3CRET"],
      timeout: .seconds(10), killAfter: .seconds(1))
    #expect(
      request.arguments == [
        "-q", "-fsSL", "--globoff", "--max-time", "10.0", "--max-redirs", "0", "--config", "-",
      ])
  }

  @Test func curlsConfigQuotesTheURLAndEachHeader() {
    let request = ExternalCommand.CurlRequest(
      curl: "/usr/bin/curl", url: #"http://h/a"b\c?q={x}"#,
      headers: ["Authorization: Bearer S3CRET", #"X-Quoted: say "hi" \ and"# + "\ttab"],
      timeout: .seconds(1), killAfter: .seconds(1))
    #expect(
      String(decoding: request.config, as: UTF8.self)
        == #"url = "http://h/a\"b\\c?q={x}""# + "\n"
        + #"header = "Authorization: Bearer S3CRET""# + "\n"
        + #"header = "X-Quoted: say \"hi\" \\ and\ttab""# + "\n")
  }

  /// A line break in a value (which the validators keep out) is escaped all the same: no value
  /// can end its config line and start another, such as `output = …`.
  @Test func curlsConfigKeepsEachValueOnItsLine() {
    let request = ExternalCommand.CurlRequest(
      curl: "/usr/bin/curl", url: "http://h/\noutput = \"/tmp/x\"\r", headers: [],
      timeout: .seconds(1), killAfter: .seconds(1))
    let config = String(decoding: request.config, as: UTF8.self)
    #expect(config == #"url = "http://h/\noutput = \"/tmp/x\"\r""# + "\n")
  }

  @Test(arguments: [0, 10, 5000, 100_000])
  func aFilledPipeHoldsTheBytesThenEnds(count: Int) throws {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) }
    let reader = try ExternalCommand.filledPipe(bytes)
    defer { close(reader) }
    // Not blocking: a write end left open would show as EAGAIN instead of the end of the pipe.
    _ = fcntl(reader, F_SETFL, O_NONBLOCK)
    var read: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let got = buffer.withUnsafeMutableBytes { Glibc.read(reader, $0.baseAddress, $0.count) }
      try #require(got >= 0, "read failed: errno \(errno) (EAGAIN: the write end is open)")
      if got == 0 { break }
      read += buffer[..<got]
    }
    #expect(read == bytes)
  }

  @Test func curlReadsItsHeadersFromStdinAndTheyNeverReachItsArguments() async throws {
    // A stand-in for curl that prints its arguments, then what it reads on stdin.
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("fake-curl-\(UUID().uuidString)").path
    try "#!/bin/sh\nprintf 'arg %s\\n' \"$@\"\ncat\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    chmod(path, 0o700)
    let request = ExternalCommand.CurlRequest(
      curl: path, url: "http://h/", headers: ["Authorization: Bearer S3CRET"],
      timeout: .seconds(600), killAfter: .seconds(1))
    let body = String(decoding: try await request.body(), as: UTF8.self)
    let lines = body.split(separator: "\n")
    #expect(lines.filter { $0.hasPrefix("arg ") }.allSatisfy { !$0.contains("S3CRET") })
    #expect(lines.filter { $0.hasPrefix("arg ") }.allSatisfy { !$0.contains("http://h/") })
    #expect(
      lines.suffix(2) == [#"url = "http://h/""#, #"header = "Authorization: Bearer S3CRET""#])
  }
}
