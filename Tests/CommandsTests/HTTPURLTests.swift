import Testing

@testable import LoadctlCommands

@Suite struct HTTPURLTests {
  @Test(arguments: [
    ("http://localhost:8080/p?q=1", "localhost", 8080, "/p?q=1", "localhost:8080"),
    ("http://example.com", "example.com", 80, "/", "example.com"),
    ("HTTP://example.com?x=1#frag", "example.com", 80, "/?x=1", "example.com"),
    ("http://[::1]:9000/a b", "::1", 9000, "/a%20b", "[::1]:9000"),
    ("http://h/ü", "h", 80, "/%C3%BC", "h"),
  ])
  func parsesWhatTheClientNeeds(
    text: String, host: String, port: Int, target: String, header: String
  ) throws {
    let url = try HTTPURL.parse(text).get()
    #expect(url.host == host)
    #expect(url.port == port)
    #expect(url.target == target)
    #expect(url.hostHeader == header)
  }

  @Test(arguments: [
    ("example.com", "invalid URL 'example.com'"),
    ("ftp://h/", "unsupported URL scheme 'ftp' in 'ftp://h/' (use http)"),
    ("https://h/", "unsupported URL scheme 'https' in 'https://h/' (loadctl has no TLS: …"),
    ("http://u:p@h/", "credentials in URLs are not supported: 'http://u:p@h/'"),
    ("http://h:0/", "invalid host or port in URL 'http://h:0/'"),
    ("http://h:65536/", "invalid host or port in URL 'http://h:65536/'"),
    ("http://h:/", "invalid host or port in URL 'http://h:/'"),
    ("http://[::1/", "invalid host or port in URL 'http://[::1/'"),
    ("http:///p", "URL 'http:///p' has no host"),
  ])
  func refusesWithOneReadableLine(text: String, message: String) {
    guard case .failure(let failure) = HTTPURL.parse(text) else {
      Issue.record("'\(text)' was accepted")
      return
    }
    if message.hasSuffix("…") {
      #expect(failure.message.hasPrefix(String(message.dropLast())))
    } else {
      #expect(failure.message == message)
    }
  }

  @Test(arguments: [
    ("http://other:81/x", "other", 81, "/x"),
    ("//other/x", "other", 80, "/x"),
    ("/top?a=1", "h", 8080, "/top?a=1"),
    ("sibling", "h", 8080, "/dir/sibling"),
  ])
  func resolvesRedirectLocations(location: String, host: String, port: Int, target: String)
    throws
  {
    let base = try HTTPURL.parse("http://h:8080/dir/page?q=1").get()
    let url = try base.resolving(location).get()
    #expect(url.host == host)
    #expect(url.port == port)
    #expect(url.target == target)
  }
}
