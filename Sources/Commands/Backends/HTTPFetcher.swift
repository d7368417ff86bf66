import Core
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// HTTP GET with real cancellation and readable failures, for `--url` sources.
///
/// On Linux a cancelled `URLSession` request throws `URLError(.cancelled)`, not
/// `CancellationError`; this maps it back, so a cancelled load is never shown as a failure. A
/// non-2xx status is a failure naming the status.
package struct HTTPFetcher: Sendable {
  package let timeout: Duration

  package init(timeout: Duration) { self.timeout = timeout }

  /// Checks that `text` is an absolute http(s) URL with a host.
  package static func validate(_ text: String) -> String? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
      return "invalid URL '\(text)'"
    }
    guard scheme == "http" || scheme == "https" else {
      return "unsupported URL scheme '\(scheme)' in '\(text)' (use http or https)"
    }
    guard let host = url.host, !host.isEmpty else { return "URL '\(text)' has no host" }
    return nil
  }

  /// Fetches the body of `text`.
  /// - Throws: `CancellationError` when cancelled; `LoadFailure` for everything else.
  package func get(_ text: String) async throws -> [UInt8] {
    guard let url = URL(string: text) else { throw LoadFailure("invalid URL '\(text)'") }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    var request = URLRequest(
      url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
    request.httpMethod = "GET"
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = seconds
    configuration.timeoutIntervalForResource = seconds
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    do {
      let (data, response) = try await session.data(for: request)
      try Task.checkCancellation()
      if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
        let reason = HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
        throw LoadFailure("HTTP \(http.statusCode) \(reason) from \(text)")
      }
      return [UInt8](data)
    } catch let error as URLError {
      if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
      if error.code == .timedOut {
        throw LoadFailure("request to \(text) timed out after \(formatDuration(timeout))")
      }
      throw LoadFailure("request to \(text) failed: \(error.localizedDescription)")
    }
  }
}
