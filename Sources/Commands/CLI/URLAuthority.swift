/// The parts of a URL's authority, split by shape alone, and its credentials kept out of output.
///
/// `--url`'s option check needs it to tell what a host is (`host`, `host:port`, `[v6]`,
/// `[v6]:port`) without Foundation's URL parser. Every message that quotes a URL passes it
/// through ``redactingLikelyUserinfo(_:)`` first, so a password typed into a URL is never
/// printed, even when the URL is malformed.
enum URLAuthority {
  /// What output shows in place of a secret: a URL's userinfo, a `--header` value.
  static let redacted = "<redacted>"

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

  /// `url` with the userinfo of its authority (`user:password@`) replaced by ``redacted``:
  /// `https://me:pw@host/p` becomes `https://<redacted>@host/p`.
  ///
  /// The authority runs from `://` to the first `/`, `?` or `#`, and its userinfo up to the
  /// last `@` in it, as curl reads them; text that is not shaped like a URL comes back as it is.
  static func redactingUserinfo(_ url: String) -> String {
    guard let separator = url.firstRange(of: "://") else { return url }
    let rest = url[separator.upperBound...]
    let authority = rest.prefix { !"/?#".contains($0) }
    guard let at = authority.lastIndex(of: "@") else { return url }
    return url[..<separator.upperBound] + redacted + url[at...]
  }

  /// `text`, given as a URL but perhaps malformed, with whatever could be userinfo replaced by
  /// ``redacted``: what an error message quotes, since a typo must not print a password.
  ///
  /// `http:/me:pw@host/p` becomes `http:/<redacted>@host/p`, `///me:pw@host` becomes
  /// `///<redacted>@host`, `me:pw@host` becomes `<redacted>@host`. The authority starts after
  /// the scheme (the text before the first `:`, when a `/` follows that `:`) and any number of
  /// `/`, or at the start; it ends at the first `/`, `?` or `#`, and what comes before its last
  /// `@` is redacted. A `:` without a `/` after it is not taken for a scheme's end (`me:pw@host`
  /// would keep `me`), so `http:me:pw@host` becomes `<redacted>@host`. On a URL of the shape
  /// `scheme://…` it agrees with ``redactingUserinfo(_:)``, which leaves other text alone.
  static func redactingLikelyUserinfo(_ text: String) -> String {
    var start = text.startIndex
    if let colon = text.firstIndex(of: ":"), !text[..<colon].contains(where: "/?#@".contains),
      text[text.index(after: colon)...].hasPrefix("/")
    {
      start = text.index(after: colon)
    }
    start = text[start...].firstIndex { $0 != "/" } ?? text.endIndex
    let authority = text[start...].prefix { !"/?#".contains($0) }
    guard let at = authority.lastIndex(of: "@") else { return text }
    return text[..<start] + redacted + text[at...]
  }
}
