/// A parsed HTTP/1.x response: what ``HTTPFetcher`` needs to decide between body, redirect and
/// failure.
struct HTTPResponse: Equatable, Sendable {
  var status: Int
  /// The reason phrase as the server sent it (may be empty).
  var reason: String
  /// Header names lowercased; a repeated header keeps its last value.
  var headers: [String: String]
  var body: [UInt8]

  /// Why bytes from a server are not a response we can use.
  struct Malformed: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
  }

  /// How a response's body ends, from its status and headers.
  enum Framing: Equatable {
    /// `Content-Length` bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`: at the last, empty chunk.
    case chunked
    /// A status that has no body (1xx, 204, 304).
    case empty
    /// Where the connection closes (the request says `Connection: close`).
    case untilClose
  }

  /// Parses `bytes`, all that has arrived so far.
  ///
  /// Returns `nil` while more bytes are needed.
  ///
  /// - Parameter complete: The server has closed the connection: nothing more will arrive.
  /// - Throws: ``Malformed`` when the bytes cannot be a response, or the connection closed early.
  static func parse(_ bytes: [UInt8], complete: Bool) throws(Malformed) -> HTTPResponse? {
    guard let headerEnd = endOfHeaders(bytes, from: 0) else {
      if complete {
        throw Malformed(bytes.isEmpty ? "empty reply from server" : "incomplete response headers")
      }
      return nil
    }
    var response = try head(bytes[..<headerEnd])
    let body = bytes[(headerEnd + 4)...]
    switch try response.framing() {
    case .chunked:
      guard let decoded = try decodeChunks(body) else {
        if complete { throw Malformed("connection closed in the middle of the response") }
        return nil
      }
      response.body = decoded
    case .length(let count):
      guard body.count >= count else {
        if complete { throw Malformed("connection closed in the middle of the response") }
        return nil
      }
      response.body = Array(body.prefix(count))
    case .empty:
      response.body = []
    case .untilClose:
      guard complete else { return nil }
      response.body = Array(body)
    }
    return response
  }

  /// The status line and headers (`bytes` up to the blank line), with an empty body.
  static func head(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> HTTPResponse {
    let head = String(decoding: bytes, as: UTF8.self)
    var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusLine = lines.removeFirst()
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
      let status = Int(parts[1]), (100...599).contains(status)
    else { throw Malformed("not an HTTP response: '\(statusLine.prefix(60))'") }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else {
        throw Malformed("bad header line '\(line.prefix(60))'")
      }
      let name = line[..<colon].lowercased()
      headers[name] = line[line.index(after: colon)...].trimmingSpaces
    }
    return HTTPResponse(
      status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
  }

  /// How this response's body ends.
  func framing() throws(Malformed) -> Framing {
    if headers["transfer-encoding"]?.lowercased().contains("chunked") == true { return .chunked }
    if let length = headers["content-length"] {
      guard !length.isEmpty, length.allSatisfy(\.isNumber), let count = Int(length) else {
        throw Malformed("bad Content-Length '\(length.prefix(20))'")
      }
      return .length(count)
    }
    if status == 204 || status == 304 || (100..<200).contains(status) { return .empty }
    return .untilClose
  }

  /// Where the blank line after the headers starts, searching from `start`.
  static func endOfHeaders(_ bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= 4, start <= bytes.count - 4 else { return nil }
    for index in start...(bytes.count - 4)
    where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
      && bytes[index + 3] == 10
    {
      return index
    }
    return nil
  }

  /// The body of a chunked transfer, or `nil` if the last chunk has not arrived yet.
  private static func decodeChunks(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> [UInt8]? {
    var body: [UInt8] = []
    var index = bytes.startIndex
    while true {
      guard let lineEnd = lineEnd(in: bytes, from: index) else { return nil }
      let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
        .prefix { $0 != ";" }.trimmingSpaces
      guard !sizeText.isEmpty, sizeText.count <= 15, sizeText.allSatisfy(\.isHexDigit),
        let size = Int(sizeText, radix: 16)
      else {
        throw Malformed("bad chunk size '\(sizeText.prefix(20))'")
      }
      index = lineEnd + 2
      if size == 0 { return body }
      guard bytes.endIndex - index >= size + 2 else { return nil }
      body += bytes[index..<(index + size)]
      index += size + 2
    }
  }

  private static func lineEnd(in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
    var index = start
    while index + 1 < bytes.endIndex {
      if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
      index += 1
    }
    return nil
  }
}
