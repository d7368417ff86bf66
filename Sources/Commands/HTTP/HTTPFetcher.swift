import LoadctlCore

/// HTTP GET with real cancellation and readable failures, for `--url` sources.
///
/// A small HTTP/1.1 client over sockets rather than `URLSession`: importing FoundationNetworking
/// made every run of loadctl, even `--version`, load libcurl, its TLS and ICU (51 shared libraries,
/// 5.9× the start-up of a hello world; BENCHMARKS.md). The price is plain HTTP only. A cancelled
/// request closes its connection at once and throws `CancellationError`, so a cancelled load is
/// never shown as a failure; a non-2xx status is a failure naming the status; redirects are
/// followed (up to 5); `timeout` bounds the whole request, redirects included.
package struct HTTPFetcher: Sendable {
  package let timeout: Duration
  /// The largest response accepted, headers included.
  static let limit = 8 * 1024 * 1024
  static let maxRedirects = 5

  package init(timeout: Duration) { self.timeout = timeout }

  /// Why `text` cannot be fetched, or `nil` if it can.
  package static func validate(_ text: String) -> String? {
    if case .failure(let failure) = HTTPURL.parse(text) { return failure.message }
    return nil
  }

  /// Fetches the body of `text`.
  /// - Throws: `CancellationError` when cancelled; `LoadFailure` for everything else.
  package func get(_ text: String) async throws -> [UInt8] {
    var url = try HTTPURL.parse(text).get()
    let deadline = ContinuousClock.now.advanced(by: timeout)
    for _ in 0...Self.maxRedirects {
      let response = try await exchange(url, deadline: deadline, text: text)
      if [301, 302, 303, 307, 308].contains(response.status),
        let location = response.headers["location"]
      {
        url = try url.resolving(location).mapError { failure in
          LoadFailure(
            "request to \(text) was redirected to a URL loadctl cannot fetch: "
              + failure.message)
        }.get()
        continue
      }
      guard (200..<300).contains(response.status) else {
        let reason = response.reason.isEmpty ? "" : " \(response.reason)"
        throw LoadFailure("HTTP \(response.status)\(reason) from \(text)")
      }
      return response.body
    }
    throw LoadFailure("request to \(text) failed: more than \(Self.maxRedirects) redirects")
  }

  /// Runs one exchange on its own thread; cancelling the task interrupts it.
  private func exchange(
    _ url: HTTPURL, deadline: ContinuousClock.Instant, text: String
  ) async throws -> HTTPResponse {
    try Task.checkCancellation()
    guard let interrupt = HTTPInterrupt() else {
      throw LoadFailure("request to \(text) failed: out of file descriptors")
    }
    let exchange = HTTPExchange(
      url: url, deadline: deadline, interrupt: interrupt, limit: Self.limit)
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let started = ReaderThread.start {
          let result = exchange.run()
          interrupt.release()
          continuation.resume(returning: result)
        }
        if !started {
          interrupt.release()
          continuation.resume(returning: .failure(.failed("cannot start a thread")))
        }
      }
    } onCancel: {
      interrupt.fire()
    }
    switch result {
    case .success(let response):
      return response
    case .failure(.cancelled):
      throw CancellationError()
    case .failure(.timedOut):
      throw LoadFailure("request to \(text) timed out after \(formatDuration(timeout))")
    case .failure(.failed(let message)):
      throw LoadFailure("request to \(text) failed: \(message)")
    }
  }
}
