import Testing

@testable import LoadctlCommands

@Suite struct HTTPResponseTests {
  private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func contentLengthBodyIsCompleteBeforeTheConnectionCloses() throws {
    let text = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello"
    let response = try #require(try HTTPResponse.parse(bytes(text), complete: false))
    #expect(response.status == 200)
    #expect(response.reason == "OK")
    #expect(response.headers["x-a"] == "b")
    #expect(response.body == bytes("hello"))
  }

  @Test func waitsForMoreWhileTheBodyIsShort() throws {
    let text = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"
    #expect(try HTTPResponse.parse(bytes(text), complete: false) == nil)
    #expect(throws: HTTPResponse.Malformed.self) {
      try HTTPResponse.parse(bytes(text), complete: true)
    }
    #expect(try HTTPResponse.parse(bytes("HTTP/1.1 200 OK\r\n"), complete: false) == nil)
  }

  @Test func chunkedBodiesAreJoined() throws {
    let text =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    let response = try #require(try HTTPResponse.parse(bytes(text), complete: false))
    #expect(response.body == bytes("abcde"))
    let cut = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab"
    #expect(try HTTPResponse.parse(bytes(cut), complete: false) == nil)
  }

  @Test func aBodyWithoutALengthEndsWithTheConnection() throws {
    let text = "HTTP/1.0 404 Not Found\r\n\r\nnope"
    #expect(try HTTPResponse.parse(bytes(text), complete: false) == nil)
    let response = try #require(try HTTPResponse.parse(bytes(text), complete: true))
    #expect(response.status == 404)
    #expect(response.body == bytes("nope"))
  }

  @Test(arguments: [
    "", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nbad\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    // Found by the HTTP fuzz target: a negative chunk size crashed the parser.
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-c\r\n0\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello",
  ])
  func malformedResponsesAreReadableFailures(text: String) {
    #expect(throws: HTTPResponse.Malformed.self) {
      try HTTPResponse.parse(bytes(text), complete: true)
    }
  }
}

/// The client's incremental reading: the same responses as parsing everything at once.
@Suite struct HTTPResponseAssemblerTests {
  /// Feeds `text` `step` bytes at a time; `nil` if it needs the connection's end.
  private func assemble(_ text: String, step: Int) throws -> (HTTPResponse?, HTTPResponse?) {
    let bytes = Array(text.utf8)
    var assembler = HTTPResponseAssembler()
    var offset = 0
    while offset < bytes.count {
      let end = min(bytes.count, offset + step)
      if let response = try assembler.append(bytes[offset..<end], complete: false) {
        return (response, try HTTPResponse.parse(bytes, complete: true))
      }
      offset = end
    }
    let atClose = try assembler.append([], complete: true)
    return (nil, atClose)
  }

  @Test(arguments: [1, 3, 7, 64])
  func lengthAndChunkedBodiesCompleteBeforeTheConnectionCloses(step: Int) throws {
    for text in [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\n\r\n\r\n0\r\n\r\n",
      "HTTP/1.1 204 No Content\r\n\r\n",
    ] {
      let (early, whole) = try assemble(text, step: step)
      #expect(early != nil, "\(text.debugDescription) needed the connection's end")
      #expect(early == whole)
    }
  }

  @Test(arguments: [1, 5, 64])
  func aBodyWithoutALengthWaitsForTheConnectionsEnd(step: Int) throws {
    let (early, atClose) = try assemble("HTTP/1.0 200 OK\r\nX: y\r\n\r\nbody\r\n\r\n", step: step)
    #expect(early == nil)
    #expect(atClose?.body == Array("body\r\n\r\n".utf8))
  }
}
