/// The host and port of a URL's authority, split by shape alone.
///
/// `--url`'s option check needs it to tell what a host is (`host`, `host:port`, `[v6]`,
/// `[v6]:port`) without Foundation's URL parser.
enum URLAuthority {
  /// `authority` (without credentials) as host and port text, or `nil` for a broken bracket.
  static func split(_ authority: Substring) -> (host: Substring, port: Substring?)? {
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      let host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      guard after.isEmpty || after.hasPrefix(":") else { return nil }
      return (host, after.isEmpty ? nil : after.dropFirst())
    }
    if let colon = authority.lastIndex(of: ":") {
      return (authority[..<colon], authority[authority.index(after: colon)...])
    }
    return (authority, nil)
  }
}
