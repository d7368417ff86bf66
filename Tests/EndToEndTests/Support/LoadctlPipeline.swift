import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `loadctl … | head -n 3` built from two real processes and one pipe, without a shell.
///
/// A shell's `$?` (or bash's `PIPESTATUS`) cannot tell death by SIGPIPE from `exit(141)`, and
/// the test process must not hold a copy of the pipe, or loadctl would never see it close.
/// Here the test keeps neither end, each side is reaped separately, and the gap between the
/// reader's exit and loadctl's exit is measured: how fast loadctl notices a closed stdout.
enum LoadctlPipeline {
  /// How both sides of a two-process pipeline ended.
  struct Outcome: Sendable, CustomStringConvertible {
    /// How loadctl (the writer) ended.
    let upstream: Termination
    /// How the reader, such as `head`, ended.
    let downstream: Termination
    /// The reader's stdout lines.
    let output: [String]
    /// Loadctl's stderr.
    let upstreamStderr: String
    /// Loadctl's exit time minus the reader's: how long loadctl ran on after its reader left.
    let upstreamExitDelay: Duration

    var description: String {
      let milliseconds =
        Double(upstreamExitDelay.components.seconds) * 1000
        + Double(upstreamExitDelay.components.attoseconds) / 1e15
      let order = milliseconds < 0 ? "before" : "after"
      return "pipeline: writer \(upstream), reader \(downstream); the writer exited "
        + String(format: "%.1f ms", abs(milliseconds)) + " \(order) the reader"
    }
  }

  /// Runs `loadctl arguments | downstream…` and waits for both to exit.
  ///
  /// - Parameter downstream: The reader's command, such as `["head", "-n", "3"]`.
  static func run(
    _ arguments: [String], into downstream: [String], environment: [String: String] = [:],
    timeout: Duration = LoadctlProcess.defaultTimeout
  ) async throws -> Outcome {
    try await run(
      executable: BinaryLocator.locate(), arguments: arguments, into: downstream,
      environment: environment, timeout: timeout)
  }

  /// Runs `executable arguments | downstream…` and waits for both to exit.
  static func run(
    executable: String, arguments: [String], into downstream: [String],
    environment: [String: String] = [:], timeout: Duration = LoadctlProcess.defaultTimeout
  ) async throws -> Outcome {
    guard let reader = downstream.first else {
      throw HarnessError.spawnFailed("an empty downstream command", errno: EINVAL)
    }
    let pipe = try Spawner.makePipe()
    let writerProcess: LoadctlProcess
    let readerProcess: LoadctlProcess
    do {
      defer { close(pipe.write) }
      writerProcess = try LoadctlProcess.start(
        executable: executable, arguments: arguments, stdout: .descriptor(pipe.write),
        environment: environment)
    } catch {
      close(pipe.read)
      throw error
    }
    do {
      defer { close(pipe.read) }
      readerProcess = try LoadctlProcess.start(
        executable: reader, arguments: Array(downstream.dropFirst()),
        stdin: .descriptor(pipe.read))
    }
    let readerEnd = try await readerProcess.waitForExit(timeout: timeout)
    let writerEnd = try await writerProcess.waitForExit(timeout: timeout)
    let delay =
      if let writerExit = writerProcess.exitedAt, let readerExit = readerProcess.exitedAt {
        writerExit - readerExit
      } else {
        Duration.zero
      }
    return Outcome(
      upstream: writerEnd, downstream: readerEnd, output: readerProcess.stdoutLines,
      upstreamStderr: writerProcess.stderrText, upstreamExitDelay: delay)
  }
}
