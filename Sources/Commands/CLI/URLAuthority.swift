/// The parts of a URL's authority, split by shape alone, and its secrets kept out of output.
///
/// `--url`'s option check needs it to tell what a host is (`host`, `host:port`, `[v6]`,
/// `[v6]:port`) without Foundation's URL parser. Every output that shows a URL (an event, a
/// recording, a trace, a message) passes it through ``redactingSecrets(_:)`` or, for text that
/// may be malformed, ``redactingLikelySecrets(_:)`` first: a password typed into a URL and the
/// value of a parameter named as a secret (`api_key=…`, `access_token=…`) are never printed.
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

  /// `url` as output shows it: ``redactingUserinfo(_:)``, then ``redactingSecretParameters(_:)``.
  static func redactingSecrets(_ url: String) -> String {
    redactingSecretParameters(redactingUserinfo(url))
  }

  /// `text`, given as a URL but perhaps malformed, as a message shows it:
  /// ``redactingLikelyUserinfo(_:)``, then ``redactingSecretParameters(_:)``.
  static func redactingLikelySecrets(_ text: String) -> String {
    redactingSecretParameters(redactingLikelyUserinfo(text))
  }

  /// `text` with the value of every query or fragment parameter whose name says it holds a
  /// secret replaced by ``redacted``: `https://h/p?q=swift&api_key=abc` becomes
  /// `https://h/p?q=swift&api_key=<redacted>`.
  ///
  /// Parameters are the `&`- or `;`-separated `name=value` pairs after the first `?` and after
  /// the first `#`. A name is compared percent-decoded, lowercased and by its letters and
  /// digits only (see ``isSecretName(_:)``). An empty value is left as it is, and so is
  /// everything else.
  static func redactingSecretParameters(_ text: String) -> String {
    guard let start = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
    var result = String(text[...start])
    var name = ""
    var (inName, secret, hidden) = (true, false, false)
    for character in text[text.index(after: start)...] {
      if character == "&" || character == ";" || character == "#" {
        if hidden { result += redacted }
        result.append(character)
        (name, inName, secret, hidden) = ("", true, false, false)
      } else if inName {
        result.append(character)
        if character == "=" {
          inName = false
          secret = isSecretName(name)
        } else {
          name.append(character)
        }
      } else if secret {
        hidden = true
      } else {
        result.append(character)
      }
    }
    if hidden { result += redacted }
    return result
  }

  /// Whether a URL parameter named `name` holds a secret by its name: it is `key`, `sig`,
  /// `pwd`, `pass`, `auth`, `otp` or `sid`, or it contains `token`, `secret`, `passw`,
  /// `passphrase`, `apikey`, `accesskey`, `privatekey`, `signature`, `credential`, `session`,
  /// `cookie`, `jwt`, `bearer`, `authorization` or `oauth` — after percent-decoding, lowercasing
  /// and keeping only letters and digits (`X-Amz-Signature`, `api_key`, `api+key`, `api%20key`).
  ///
  /// Whatever a server makes of the name (`+` as a space, a `%` that starts no escape, as in
  /// `tok%en`, kept as it is), what is left of it to compare is the same.
  static func isSecretName(_ name: String) -> Bool {
    var bytes: [UInt8] = []
    var utf8 = Array(name.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: "%"), utf8.count >= 2,
        let decoded = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
      {
        utf8 = utf8.dropFirst(2)
        bytes.append(decoded)
      } else {
        bytes.append(byte)
      }
    }
    let normalized = String(decoding: bytes, as: UTF8.self).lowercased().filter {
      $0.isLetter || $0.isNumber
    }
    return exactSecretNames.contains(normalized)
      || secretNameParts.contains { normalized.contains($0) }
  }

  private static let exactSecretNames: Set = ["key", "sig", "pwd", "pass", "auth", "otp", "sid"]
  private static let secretNameParts = [
    "token", "secret", "passw", "passphrase", "apikey", "accesskey", "privatekey", "signature",
    "credential", "session", "cookie", "jwt", "bearer", "authorization", "oauth",
  ]
}
