/// Collects a response's bytes as they arrive and parses them once they can be complete.
///
/// Parsing everything received after every read made a large response quadratic (an 8 MiB body
/// arrives in some 128 reads). This finds the end of the headers by looking only at new bytes,
/// learns from them how the body ends, and calls ``HTTPResponse/parse(_:complete:)`` only when
/// that end may have arrived: enough bytes for `Content-Length`, bytes ending like the last
/// chunk for a chunked body, the connection's end otherwise.
struct HTTPResponseAssembler {
  private(set) var bytes: [UInt8] = []
  /// Where the scan for the blank line after the headers goes on from.
  private var scanned = 0
  private var framing: HTTPResponse.Framing?
  private var bodyStart = 0

  /// Adds what one read returned; `complete` when the connection has closed.
  /// - Returns: The response, once it is complete.
  /// - Throws: ``HTTPResponse/Malformed`` as the parser does.
  mutating func append(
    _ new: ArraySlice<UInt8>, complete: Bool
  ) throws(HTTPResponse.Malformed) -> HTTPResponse? {
    bytes += new
    if complete { return try HTTPResponse.parse(bytes, complete: true) }
    if framing == nil {
      guard let end = HTTPResponse.endOfHeaders(bytes, from: scanned) else {
        scanned = max(0, bytes.count - 3)
        return nil
      }
      framing = try HTTPResponse.head(bytes[..<end]).framing()
      bodyStart = end + 4
    }
    switch framing {
    case .length(let count) where bytes.count - bodyStart < count: return nil
    case .chunked where !bytes.suffix(4).elementsEqual([13, 10, 13, 10]):
      return nil
    case .untilClose: return nil
    default: return try HTTPResponse.parse(bytes, complete: false)
    }
  }
}
