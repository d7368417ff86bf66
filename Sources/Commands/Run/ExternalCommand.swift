import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Users' own work as child processes: `--exec` shell commands and `--url` through curl.
///
/// Every command runs through Core's ``Subprocess`` in a process group of its own, so cancelling
/// the task that runs it (a newer query, `cancel`, `--timeout`, Ctrl-C) tears the whole group
/// down. Failures become ``LoadFailure``s that say how the command ended and its last stderr line.
///
/// ```swift
/// let command = ExternalCommand.Shell("curl -fsS https://example.com/me.json")
/// let bytes = try await command.output(timeout: .seconds(5), killAfter: .seconds(2))
/// ```
package enum ExternalCommand {
  /// The exit status when a tool loadctl runs is missing (`EX_UNAVAILABLE` from `sysexits.h`).
  package static let unavailableStatus: Int32 = 69

  /// `text` as one POSIX shell word: `it's` becomes `'it'\''s'`, so the shell never reads any
  /// of it as syntax.
  package static func shellQuoted(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#)
      + "'"
  }

  /// `template` with each `{query}` replaced by `query` quoted as one shell word.
  package static func substituting(_ template: String, query: String) -> String {
    template.split(separator: "{query}", omittingEmptySubsequences: false)
      .joined(separator: shellQuoted(query))
  }

  /// The path of the executable `name` in the directories of `path` (`PATH`), if there is one.
  package static func find(_ name: String, path: String?) -> String? {
    for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// A tool loadctl runs is not on `PATH` (exit 69): `--url` without curl.
  package struct Unavailable: Error {
    package let message: String
  }

  /// The options every flow that runs commands shares, checked once: `--header` only with
  /// `--url` and well formed, and no real process on virtual time.
  ///
  /// - Parameter given: The source option the command line chose (`--url`, `--exec`, or another
  ///   that runs no process), if any.
  /// - Returns: The `--header` values.
  /// - Throws: `UsageError`.
  package static func checkedOptions(
    _ invocation: Invocation, mode: RunMode, given: String?, runsProcess: Bool
  ) throws(UsageError) -> [String] {
    let command = invocation.command
    let headers = invocation.strings("header")
    if !headers.isEmpty, given != "--url" {
      throw .invalidValue("'--header' only applies to '--url'", command: command)
    }
    if let problem = headers.lazy.compactMap(headerProblem).first {
      throw .invalidValue(problem, command: command)
    }
    if let given, runsProcess { try requireRealTime(given, mode: mode, command: command) }
    return headers
  }

  /// Refuses `option`, which runs real processes, on virtual time.
  /// - Throws: `UsageError` (exit 64) when the run is on `--clock virtual`.
  package static func requireRealTime(_ option: String, mode: RunMode, command: String)
    throws(UsageError)
  {
    guard mode.isVirtual else { return }
    throw .invalidValue(
      "'\(option)' cannot be used with '--clock virtual': real processes do not run on "
        + "virtual time", command: command)
  }

  /// curl's path on `PATH`.
  /// - Throws: ``Unavailable`` naming `--exec` as the way without curl.
  package static func curl(environment: [String: String], task: String) throws(Unavailable)
    -> String
  {
    guard let path = find("curl", path: environment["PATH"]) else {
      throw Unavailable(
        message: "'--url' runs curl, which is not on PATH; install curl, or \(task) with "
          + "'--exec' and a command of your own")
    }
    return path
  }

  /// Why `url` cannot be a `--url`, or `nil`: only `http://` and `https://`, and no credentials
  /// in the URL (they would show in `ps` and in the `start` event; send an `Authorization`
  /// header instead).
  package static func urlProblem(_ url: String) -> String? {
    let scheme = url.prefix { $0 != ":" }.lowercased()
    guard scheme == "http" || scheme == "https" else {
      return "unsupported URL scheme '\(scheme)' in '\(url)' (use http or https)"
    }
    let rest = url.drop { $0 != ":" }.dropFirst(3)
    if rest.prefix(while: { !"/?#".contains($0) }).contains("@") {
      return "credentials in URLs are not supported: '\(url)' (send them with "
        + "--header 'Authorization: …')"
    }
    return nil
  }

  /// Why a `--header` value cannot be sent, or `nil` when it is `Name: value`.
  package static func headerProblem(_ header: String) -> String? {
    guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
      return "invalid header '\(header)' (expected 'Name: value')"
    }
    let name = header[..<colon]
    let allowed = name.unicodeScalars.allSatisfy { scalar in
      scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F && scalar != ":"
    }
    let valueIsLine = !header.contains("\n") && !header.contains("\r")
    return allowed && valueIsLine ? nil : "invalid header '\(header)' (expected 'Name: value')"
  }

  /// `curl -fsSL --globoff --max-time SECONDS [-H HEADER]… -- URL`: HTTPS, proxies
  /// (`https_proxy`), HTTP/2 and redirects (`-L`), a non-2xx status as a failure (`-f`), errors
  /// on stderr (`-sS`), and `[]{}` in the URL sent as they are rather than expanded as a glob.
  package static func curl(
    _ curl: String, url: String, timeout: Duration, headers: [String], killAfter: Duration
  ) -> Subprocess {
    let seconds =
      Double(timeout.components.seconds)
      + Double(timeout.components.attoseconds) / 1e18
    var arguments = ["-fsSL", "--globoff", "--max-time", String(seconds)]
    for header in headers { arguments += ["-H", header] }
    arguments += ["--", url]
    return Subprocess(executable: curl, arguments: arguments, killAfter: killAfter)
  }

  /// A shell command (`/bin/sh -c`) with its teardown grace.
  package static func shell(_ command: String, killAfter: Duration) -> Subprocess {
    var subprocess = Subprocess.shell(command)
    subprocess.killAfter = killAfter
    return subprocess
  }

  /// Runs `subprocess` to its end and returns its stdout.
  ///
  /// - Parameters:
  ///   - what: How to name the command in a failure, e.g. `command` or `curl`.
  ///   - timeout: Tears the command down and fails once this much time has passed; `nil` waits.
  /// - Throws: `CancellationError` when the task was cancelled (the group is gone by then);
  ///   ``LoadFailure`` when the command could not start, timed out, exited non-zero or was
  ///   killed by a signal, with its last stderr line.
  package static func output(
    of subprocess: Subprocess, what: String, timeout: Duration?, limit: Int = 8 << 20
  ) async throws -> [UInt8] {
    let outcome: Outcome = await withTaskGroup(of: Outcome.self) { group in
      group.addTask {
        do throws(SubprocessError) {
          return .finished(try await subprocess.output(limit: limit))
        } catch {
          return error == .cancelled ? .cancelled : .failed(error.description)
        }
      }
      if let timeout {
        group.addTask {
          do {
            try await ContinuousClock().sleep(for: timeout)
            return .timedOut
          } catch {
            return .cancelled
          }
        }
      }
      let first = await group.next() ?? .cancelled
      group.cancelAll()
      return first
    }
    switch outcome {
    case .cancelled:
      throw CancellationError()
    case .timedOut:
      throw LoadFailure("\(what) timed out after \(formatDuration(timeout ?? .zero))")
    case .failed(let message):
      throw LoadFailure(message)
    case .finished(let output):
      if Task.isCancelled { throw CancellationError() }
      if output.truncated {
        throw LoadFailure("\(what) printed more than \(limit) bytes, so it was stopped")
      }
      guard output.termination == .exited(0) else {
        throw LoadFailure(failure(what, output.termination, output.stderrTail))
      }
      return output.stdout
    }
  }

  /// `command failed (exit status 3): <last stderr line>`.
  package static func failure(
    _ what: String, _ termination: Subprocess.Termination, _ stderrTail: [String]
  ) -> String {
    let last = stderrTail.last { !$0.allSatisfy(\.isWhitespace) }
    return "\(what) failed (\(termination))" + (last.map { ": \($0)" } ?? "")
  }

  private enum Outcome: Sendable {
    case finished(Subprocess.Output)
    case failed(String)
    case timedOut
    case cancelled
  }
}
