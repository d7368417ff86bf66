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
/// Secrets stay out of sight: a `--header` value never goes on curl's command line (see
/// ``CurlRequest``) and is shown as ``redacted(header:)``; a URL in a message is shown without
/// its userinfo.
///
/// ```swift
/// let command = ExternalCommand.shell("uname -r", killAfter: .seconds(2))
/// let bytes = try await ExternalCommand.output(of: command, what: "command", timeout: .seconds(5))
/// ```
package enum ExternalCommand {
  /// The exit status when a tool loadctl runs is missing (`EX_UNAVAILABLE` from `sysexits.h`).
  package static let unavailableStatus: Int32 = ExitStatus.unavailable

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
  /// - Parameters:
  ///   - headers: The `--header` values, in order.
  ///   - command: The subcommand, for the usage line.
  ///   - given: The source option the command line chose (`--url`, `--exec`, or another that
  ///     runs no process), if any.
  /// - Returns: The `--header` values.
  /// - Throws: `UsageError`.
  package static func checkedOptions(
    headers: [String], command: String, mode: RunMode, given: String?, runsProcess: Bool
  ) throws(UsageError) -> [String] {
    if !headers.isEmpty, given != "--url" {
      throw .invalidValue("'--header' only applies to '--url'", command: command)
    }
    for (index, header) in headers.enumerated() {
      guard let problem = headerProblem(header) else { continue }
      let which = headers.count > 1 ? " (--header number \(index + 1))" : ""
      throw .invalidValue(problem + which, command: command)
    }
    if let given, runsProcess { try requireRealTime(given, mode: mode, command: command) }
    return headers
  }

  /// Refuses `option`, which runs real processes, on virtual time.
  /// - Throws: `UsageError` (exit 64) when the run is on `--clock virtual`.
  package static func requireRealTime(_ option: String, mode: RunMode, command: String)
    throws(UsageError)
  {
    // A replay runs on virtual time, but no process: every result comes from the recording.
    guard mode.isVirtual, !mode.isReplay else { return }
    throw .invalidValue(
      "'\(option)' cannot be used with '--clock virtual': real processes do not run on "
        + "virtual time", command: command)
  }

  /// curl's path on `PATH`.
  /// - Throws: ``Unavailable`` naming `--exec` as the way without curl.
  package static func curl(
    environment: [String: String], task: String, mode: RunMode = .continuous
  ) throws(Unavailable) -> String {
    // A replay runs no curl: its responses come from the recording.
    if mode.isReplay { return "curl" }
    guard let path = find("curl", path: environment["PATH"]) else {
      throw Unavailable(
        message: "'--url' runs curl, which is not on PATH; install curl, or \(task) with "
          + "'--exec' and a command of your own")
    }
    return path
  }

  /// Why `url` cannot be a `--url`, or `nil`: only `http://` and `https://`, and no credentials
  /// in the URL (they would show in `ps`; send an `Authorization` header instead). The message
  /// shows the URL without its userinfo.
  package static func urlProblem(_ url: String) -> String? {
    let shown = URLAuthority.redactingLikelyUserinfo(url)
    let scheme = shown.prefix { $0 != ":" }.lowercased()
    guard scheme == "http" || scheme == "https" else {
      return "unsupported URL scheme '\(scheme)' in '\(shown)' (use http or https)"
    }
    if shown != url {
      return "credentials in URLs are not supported: '\(shown)' (send them with "
        + "--header 'Authorization: …')"
    }
    return nil
  }

  /// Why a `--header` value cannot be sent, or `nil` when it is `Name: value` on one line.
  ///
  /// The message never holds the value: it names the header as ``redacted(header:)`` when its
  /// name is well formed, and shows nothing of it otherwise (`Bearer abc`, a token without its
  /// name, is all value).
  package static func headerProblem(_ header: String) -> String? {
    let name = header.unicodeScalars.prefix { $0 != ":" }
    let isToken = name.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
    guard !name.isEmpty, name.count < header.unicodeScalars.count, isToken else {
      return "invalid header (expected 'Name: value'; it is not shown, as it may hold a secret)"
    }
    guard !header.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else {
      return "invalid header '\(redacted(header: header))' (a value cannot hold a line break)"
    }
    return nil
  }

  /// `Name: <redacted>`: a well-formed `--header` as every output shows it, name kept.
  package static func redacted(header: String) -> String {
    "\(header.prefix { $0 != ":" }): \(URLAuthority.redacted)"
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
  ///   - explain: A message of its own for an end that is not `exit 0`, if it has one; else the
  ///     failure names the end and the last stderr line.
  ///   - nothingFound: An exit status that, with nothing on stdout, is no failure but an empty
  ///     output (grep's and rg's 1, "no match").
  ///   - stderr: Given the command's stderr lines as they come (and what of them was not
  ///     shown), when given; else stderr is only kept for the failure's message.
  /// - Throws: `CancellationError` when the task was cancelled (the group is gone by then);
  ///   ``LoadFailure`` when the command could not start, timed out, exited non-zero or was
  ///   killed by a signal, with its last stderr line.
  package static func output(
    of subprocess: Subprocess, what: String, timeout: Duration?, limit: Int = 8 << 20,
    nothingFound: Int32? = nil, stderr show: (@Sendable (Output) -> Void)? = nil,
    explain: (Subprocess.Termination) -> String? = { _ in nil }
  ) async throws -> [UInt8] {
    var subprocess = subprocess
    subprocess.streamsStderr = show != nil
    let outcome: Outcome = await withTaskGroup(of: Outcome.self) { [subprocess] group in
      group.addTask {
        do throws(SubprocessError) {
          let output = try await subprocess.output(limit: limit) { show?(.lines(.stderr, $0)) }
          if output.droppedStderrBytes > 0 {
            show?(.dropped(.stderr, bytes: output.droppedStderrBytes))
          }
          return .finished(output)
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
      if let nothingFound, output.termination == .exited(nothingFound), output.stdout.isEmpty {
        return []
      }
      guard output.termination == .exited(0) else {
        throw LoadFailure(
          explain(output.termination) ?? failure(what, output.termination, output.stderrTail))
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

extension ExternalCommand {
  /// One `GET` through curl, its URL and `--header` values handed to curl on its stdin, never in
  /// its arguments.
  ///
  /// Every local user can read a process's arguments (`ps`, `/proc/PID/cmdline`) for as long as
  /// it runs, so neither a header that carries a token nor a URL whose query does may be one.
  /// curl runs as `curl -q -fsSL --globoff --max-time SECONDS [--max-redirs 0] --config -`:
  /// no `.curlrc` (`-q`), HTTPS, proxies (`https_proxy`), HTTP/2 and redirects (`-L`), a non-2xx
  /// status as a failure (`-f`), errors on stderr (`-sS`), `[]{}` in the URL sent as they are.
  /// It reads ``config`` from stdin: a pipe that holds all of it, its write end closed before
  /// curl starts, and its read end closed here once curl has been reaped, however the request
  /// ends.
  ///
  /// With headers, a redirect is not followed (`--max-redirs 0`) and fails the request: curl
  /// sends a custom header to whatever host a redirect names, so a token would reach a server
  /// the user did not name, in clear text after a redirect from `https` to `http`.
  package struct CurlRequest: Sendable {
    /// curl's path.
    package let curl: String
    package let url: String
    /// `--header` values, each checked by ``ExternalCommand/headerProblem(_:)``.
    package let headers: [String]
    /// curl's `--max-time`; a second more is the failsafe that tears it down.
    package let timeout: Duration
    /// The grace between SIGTERM and SIGKILL when the request is torn down.
    package let killAfter: Duration

    /// curl's arguments: options only, neither the URL nor a header.
    ///
    /// `--max-time` is at least `0.001`: curl counts it in whole milliseconds, and reads less
    /// than one as `0`, no limit at all.
    package var arguments: [String] {
      let (seconds, attoseconds) = timeout.components
      let maxTime = max(Double(seconds) + Double(attoseconds) / 1e18, 0.001)
      var arguments = ["-q", "-fsSL", "--globoff", "--max-time", String(maxTime)]
      if !headers.isEmpty { arguments += ["--max-redirs", "0"] }
      return arguments + ["--config", "-"]
    }

    /// What curl reads with `--config -`: a `url = "…"` line, then a `header = "Name: value"`
    /// line per header, `\` and `"` escaped as curl's config syntax wants them inside double
    /// quotes.
    package var config: [UInt8] {
      var text = "url = " + Self.quoted(url) + "\n"
      for header in headers {
        text += "header = " + Self.quoted(header) + "\n"
      }
      return Array(text.utf8)
    }

    /// `text` in double quotes, in curl's config syntax.
    private static func quoted(_ text: String) -> String {
      var quoted = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": quoted += "\\\\"
        case "\"": quoted += "\\\""
        case "\t": quoted += "\\t"
        // Validators keep line breaks out; escaped all the same, a value can never end its line.
        case "\n": quoted += "\\n"
        case "\r": quoted += "\\r"
        default: quoted.unicodeScalars.append(scalar)
        }
      }
      return quoted + "\""
    }

    /// curl's exit status when a redirect went past `--max-redirs`.
    static let tooManyRedirects: Int32 = 47

    /// Runs curl to its end and returns the body; curl's stderr lines go to `stderr` as they
    /// come, when given.
    /// - Throws: What ``ExternalCommand/output(of:what:timeout:limit:)`` throws, and
    ///   `LoadFailure` when the URL and headers cannot be handed over or a redirect is refused.
    package func body(stderr: (@Sendable (Output) -> Void)? = nil) async throws -> [UInt8] {
      var subprocess = Subprocess(executable: curl, arguments: arguments, killAfter: killAfter)
      let input = try ExternalCommand.filledPipe(config)
      defer { close(input) }
      subprocess.standardInput = input
      // curl's own --max-time comes first, with its own message; this is the failsafe.
      return try await ExternalCommand.output(
        of: subprocess, what: "curl", timeout: timeout + .seconds(1), stderr: stderr
      ) { [headers] end in
        guard !headers.isEmpty, end == .exited(Self.tooManyRedirects) else { return nil }
        return "the server answered with a redirect, which loadctl does not follow with "
          + "--header (curl would send the headers wherever it points): use the URL it "
          + "redirects to"
      }
    }
  }

  /// A pipe that holds `bytes` and then ends: its read end, the write end already closed.
  ///
  /// Written before any reader exists, so it must fit in the pipe: the write end does not block,
  /// and a pipe too small for `bytes` is made larger where the system allows it.
  /// - Throws: `LoadFailure` when the pipe cannot be made or cannot hold `bytes`.
  static func filledPipe(_ bytes: [UInt8]) throws(LoadFailure) -> Int32 {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw LoadFailure(
        "cannot pass the URL and headers to curl: \(InputFile.describeErrno(errno))")
    }
    let (reader, writer) = (ends[0], ends[1])
    defer { close(writer) }
    // Spawns also close every inherited descriptor above 2 (see Core's ChildProcess).
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(writer, F_SETFL, O_NONBLOCK)
    #if os(Linux)
      let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, which Glibc's module does not import
      if bytes.count > Int(PIPE_BUF) {
        _ = fcntl(writer, setPipeSize, Int32(clamping: bytes.count))
      }
    #endif
    var written = 0
    while written < bytes.count {
      let result = bytes[written...].withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
      if result >= 0 {
        written += result
        continue
      }
      let code = errno
      if code == EINTR { continue }
      close(reader)
      let reason =
        code == EAGAIN
        ? "\(bytes.count) bytes do not fit in a pipe" : InputFile.describeErrno(code)
      throw LoadFailure("cannot pass the URL and headers to curl: \(reason)")
    }
    return reader
  }
}
