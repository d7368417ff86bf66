import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One blocking HTTP/1.1 GET over a socket, run on a thread of its own by ``HTTPFetcher``.
///
/// Every wait (connect, send, receive) is a `poll` on the socket and on ``HTTPInterrupt``'s
/// pipe, bounded by the request's deadline: cancelling the task fires the interrupt, the poll
/// returns at once, and the socket is closed before the fetch returns, so the server sees the
/// connection drop. Only name resolution (`getaddrinfo`) cannot be interrupted; a cancel during
/// it takes effect as soon as it returns.
struct HTTPExchange: Sendable {
  /// How an exchange can end without a response.
  enum Failure: Error, Equatable {
    case cancelled
    case timedOut
    case failed(String)
  }

  let url: HTTPURL
  let deadline: ContinuousClock.Instant
  let interrupt: HTTPInterrupt
  /// The largest response accepted, headers included.
  let limit: Int

  /// Connects, sends the request and reads the response.
  func run() -> Result<HTTPResponse, Failure> {
    do throws(Failure) {
      let socket = try openSocket()
      defer { close(socket) }
      try sendRequest(request, on: socket)
      return .success(try readResponse(on: socket))
    } catch {
      return .failure(error)
    }
  }

  private var request: [UInt8] {
    Array(
      ("GET \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\n"
        + "User-Agent: loadctl/\(CommandTable.version)\r\nAccept: application/json, */*\r\n"
        + "Connection: close\r\n\r\n").utf8)
  }

  private func openSocket() throws(Failure) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(url.host, String(url.port), &hints, &list)
    guard status == 0, let first = list else {
      throw .failed("cannot resolve host '\(url.host)': \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(first) }
    try checkInterrupt()
    var lastError = ECONNREFUSED
    var next: UnsafeMutablePointer<addrinfo>? = first
    while let address = next {
      next = address.pointee.ai_next
      let fd = socket(
        address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
      guard fd >= 0 else {
        lastError = errno
        continue
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
      #endif
      if connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0,
        errno != EINPROGRESS
      {
        lastError = errno
        close(fd)
        continue
      }
      do throws(Failure) {
        try wait(on: fd, for: Int16(POLLOUT))
      } catch {
        close(fd)
        throw error
      }
      var socketError: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
      if socketError == 0 { return fd }
      lastError = socketError
      close(fd)
    }
    throw .failed(Self.describe(lastError))
  }

  private func sendRequest(_ bytes: [UInt8], on fd: Int32) throws(Failure) {
    var offset = 0
    while offset < bytes.count {
      #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
      #else
        let flags: Int32 = 0
      #endif
      let sent = bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return 0 }
        return send(fd, base + offset, raw.count - offset, flags)
      }
      if sent > 0 {
        offset += sent
      } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
        try wait(on: fd, for: Int16(POLLOUT))
      } else {
        throw .failed("sending the request: " + Self.describe(errno))
      }
    }
  }

  private func readResponse(on fd: Int32) throws(Failure) -> HTTPResponse {
    var response = HTTPResponseAssembler()
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      try wait(on: fd, for: Int16(POLLIN))
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
        throw .failed("reading the response: " + Self.describe(errno))
      }
      guard response.bytes.count + count <= limit else {
        throw .failed("the response is larger than \(limit / (1024 * 1024)) MiB")
      }
      do throws(HTTPResponse.Malformed) {
        if let complete = try response.append(chunk[..<count], complete: count == 0) {
          return complete
        }
      } catch {
        throw .failed(error.message)
      }
    }
  }

  /// Waits until `fd` is ready for `events`, the interrupt fires, or the deadline passes.
  private func wait(on fd: Int32, for events: Int16) throws(Failure) {
    while true {
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero else { throw .timedOut }
      let (seconds, attoseconds) = left.components
      let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
      var fds = [
        pollfd(fd: fd, events: events, revents: 0),
        pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, milliseconds)
      if ready < 0 {
        if errno == EINTR { continue }
        throw .failed("poll: " + Self.describe(errno))
      }
      if fds[1].revents != 0 { throw .cancelled }
      if fds[0].revents != 0 { return }
    }
  }

  private func checkInterrupt() throws(Failure) {
    var fds = [pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0)]
    if poll(&fds, 1, 0) > 0 { throw .cancelled }
  }

  /// `strerror`'s text with a lowercase first letter, to read well after "failed: ".
  static func describe(_ code: Int32) -> String {
    let text = String(cString: strerror(code))
    return text.prefix(1).lowercased() + text.dropFirst()
  }
}
