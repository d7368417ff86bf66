import LoadctlCore

/// An `http://` URL taken apart into what a request needs: where to connect and what to ask for.
///
/// loadctl's HTTP client speaks plain HTTP/1.1 over a socket (see ``HTTPFetcher``), so the parser
/// accepts exactly what that client can fetch and says in one line why anything else is refused:
/// `https` (no TLS here), other schemes, credentials, a missing host or a bad port.
struct HTTPURL: Equatable, Sendable {
  /// The host to resolve, without the brackets of an IPv6 literal.
  var host: String
  var port: Int
  /// Path and query, percent-encoded where needed; never empty (`/` at least).
  var target: String

  /// The `Host` header: the host as written (bracketed for IPv6), with the port unless it is 80.
  var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    return port == 80 ? name : "\(name):\(port)"
  }

  /// Parses `text`, or returns the reason it cannot be fetched.
  static func parse(_ text: String) -> Result<HTTPURL, LoadFailure> {
    guard let separator = text.firstRange(of: "://") else {
      return .failure(LoadFailure("invalid URL '\(text)'"))
    }
    let scheme = text[..<separator.lowerBound].lowercased()
    guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
      return .failure(LoadFailure("invalid URL '\(text)'"))
    }
    if scheme == "https" {
      return .failure(
        LoadFailure(
          "unsupported URL scheme 'https' in '\(text)' (loadctl has no TLS: use http, "
            + "or fetch with curl and pipe it in)"))
    }
    guard scheme == "http" else {
      return .failure(LoadFailure("unsupported URL scheme '\(scheme)' in '\(text)' (use http)"))
    }
    let rest = text[separator.upperBound...].prefix { $0 != "#" }
    let authority = rest.prefix { $0 != "/" && $0 != "?" }
    let path = rest[authority.endIndex...]
    if authority.contains("@") {
      return .failure(LoadFailure("credentials in URLs are not supported: '\(text)'"))
    }
    guard let (host, port) = splitHostAndPort(authority) else {
      return .failure(LoadFailure("invalid host or port in URL '\(text)'"))
    }
    guard !host.isEmpty else { return .failure(LoadFailure("URL '\(text)' has no host")) }
    let target = path.isEmpty ? "/" : (path.hasPrefix("?") ? "/" + path : String(path))
    return .success(HTTPURL(host: host, port: port, target: percentEncoded(target)))
  }

  /// Where a redirect's `Location` points, relative to this URL.
  func resolving(_ location: String) -> Result<HTTPURL, LoadFailure> {
    if location.contains("://") { return Self.parse(location) }
    if location.hasPrefix("//") { return Self.parse("http:" + location) }
    var copy = self
    if location.hasPrefix("/") {
      copy.target = Self.percentEncoded(location)
    } else {
      let path = target.prefix { $0 != "?" }
      let directory = path[...(path.lastIndex(of: "/") ?? path.startIndex)]
      copy.target = Self.percentEncoded(directory + location)
    }
    return .success(copy)
  }

  private static func splitHostAndPort(_ authority: Substring) -> (String, Int)? {
    guard let (host, port) = URLAuthority.split(authority),
      host.allSatisfy({ $0.isASCII && !$0.isWhitespace })
    else { return nil }
    guard let port else { return (String(host), 80) }
    guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
      let number = Int(port), (1...65535).contains(number)
    else { return nil }
    return (String(host), number)
  }

  /// `target` with every byte that may not appear in a request line percent-encoded.
  static func percentEncoded(_ target: some StringProtocol) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(target.utf8.count)
    for byte in target.utf8 {
      if byte > 0x20, byte < 0x7F {
        bytes.append(byte)
      } else {
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
