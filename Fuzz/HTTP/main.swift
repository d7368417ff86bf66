// libFuzzer entry point for the HTTP client's parsers: `HTTPResponse.parse` (bytes from a server)
// and `HTTPURL.parse`/`resolving` (URLs from the command line and from `Location` headers).
//
// The first byte picks the mode. Response mode feeds the rest to the client's assembler `step`
// bytes at a time, as the client reads, and checks that a response found early is
// the one found at the end, that a body never exceeds what arrived, and that a status is
// 100...599. URL mode parses the rest as a URL and as a redirect location against a fixed base:
// an accepted URL has a host, a port in 1...65535 and a target that starts with `/` and holds
// nothing but printable ASCII (it goes into the request line as is).

/// Called by libFuzzer once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let mode = bytes.first else { return 0 }
  let rest = Array(bytes.dropFirst())
  if mode & 1 == 0 {
    checkResponse(rest, step: Int(mode >> 1) + 1)
  } else {
    checkURL(String(decoding: rest, as: UTF8.self))
  }
  return 0
}

private func checkResponse(_ bytes: [UInt8], step: Int) {
  // As the client reads: through its assembler, `step` bytes at a time.
  var assembler = HTTPResponseAssembler()
  var early: HTTPResponse?
  var offset = 0
  while early == nil, offset < bytes.count {
    let end = min(bytes.count, offset + step)
    do {
      early = try assembler.append(bytes[offset..<end], complete: false)
    } catch {
      break
    }
    offset = end
  }
  let final = try? HTTPResponse.parse(bytes, complete: true)
  for response in [early, final].compactMap({ $0 }) {
    check((100...599).contains(response.status), "status \(response.status)")
    check(response.body.count <= bytes.count, "a body longer than the input")
  }
  // A response the assembler found complete is what parsing everything gives: bytes after its
  // end never change it.
  if let early {
    check(final == early, "a complete response changed when more bytes arrived")
  }
}

private func checkURL(_ text: String) {
  if case .success(let url) = HTTPURL.parse(text) {
    checkAccepted(url, text)
    let base = HTTPURL(host: "h", port: 8080, target: "/dir/page?q=1")
    if case .success(let resolved) = base.resolving(text) { checkAccepted(resolved, text) }
  }
}

private func checkAccepted(_ url: HTTPURL, _ text: String) {
  check(!url.host.isEmpty, "'\(text)' accepted without a host")
  check((1...65535).contains(url.port), "'\(text)' accepted with port \(url.port)")
  check(url.target.hasPrefix("/"), "'\(text)' gave target '\(url.target)'")
  check(
    url.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
    "'\(text)' gave a target that cannot go into a request line")
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
