import LoadctlCore

/// A `--url` template such as `http://localhost:8080/search?q={query}`, and the JSON it expects.
///
/// Each `{query}` is replaced by the query percent-encoded as UTF-8, keeping only RFC 3986's
/// unreserved characters, so `a&b c` arrives as one value `a%26b%20c` in any part of the URL.
/// curl fetches it (``ExternalCommand/CurlRequest``: the URL on curl's stdin, never through a
/// shell). The response must be a JSON array of strings, in the order the server ranks them.
package struct SearchURLTemplate: Sendable, Equatable {
  package static let placeholder = "{query}"
  package let template: String

  /// Checks that the template has a placeholder and gives an http(s) URL without credentials.
  /// - Throws: `UsageError` (exit 64) naming what is wrong with it.
  package init(_ template: String) throws(UsageError) {
    guard template.contains(Self.placeholder) else {
      throw UsageError.invalidValue(
        "'--url' needs \(Self.placeholder) where the query goes, e.g. "
          + "'http://localhost:8080/search?q={query}'", command: "search")
    }
    self.template = template
    if let problem = ExternalCommand.urlProblem(url(for: "swift")) {
      throw UsageError.invalidValue("\(problem) for '--url'", command: "search")
    }
  }

  /// The URL for `query`.
  package func url(for query: String) -> String {
    template.replacingAll(Self.placeholder, with: Self.percentEncode(query))
  }

  /// Percent-encodes everything but `A-Z a-z 0-9 - . _ ~`.
  package static func percentEncode(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        bytes.append(byte)
      default:
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Reads the body as a JSON array of strings.
  /// - Throws: `LoadFailure` naming the URL when the body is anything else.
  package static func decode(_ body: [UInt8], from url: String) throws(LoadFailure) -> [String] {
    let shown = URLAuthority.redactingSecrets(url)
    let value: JSONValue
    do throws(JSONParser.Failure) {
      value = try JSONParser.parse(bytes: body)
    } catch {
      throw LoadFailure("response from \(shown) is not JSON: \(error)")
    }
    guard case .array(let elements) = value else {
      throw LoadFailure("response from \(shown) is not a JSON array of strings")
    }
    var names: [String] = []
    for element in elements {
      guard case .string(let name) = element else {
        throw LoadFailure("response from \(shown) is not a JSON array of strings")
      }
      names.append(name)
    }
    return names
  }
}

extension String {
  /// The string with every occurrence of `target` replaced, without Foundation.
  fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
