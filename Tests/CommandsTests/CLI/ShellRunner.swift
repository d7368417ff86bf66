import Foundation

/// Runs the real shells against generated completion scripts.
///
/// Snapshots prove the scripts did not change; only a shell proves they work. Every run is
/// bounded by `timeout`, so a script that makes a shell hang fails the test instead of
/// stalling it.
enum ShellRunner {
  /// The full path of `name` on `PATH`, or `nil` when it is not installed.
  static func which(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static let bashCompletionScript = "/usr/share/bash-completion/bash_completion"

  static var hasBash: Bool { which("bash") != nil }
  static var hasBashCompletion: Bool {
    hasBash && FileManager.default.fileExists(atPath: bashCompletionScript)
  }
  static var hasZsh: Bool { which("zsh") != nil }
  static var hasFish: Bool { which("fish") != nil }

  /// Runs `executable` with `arguments` on a thread of its own and returns its exit status and
  /// standard output.
  ///
  /// Waiting for a shell blocks; doing that on the cooperative pool (two threads here) stalled
  /// every other async test in the run, so the blocking part runs on a plain thread.
  static func run(_ executable: String, _ arguments: [String]) async throws -> (
    status: Int32, output: String
  ) {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(with: Result { try runBlocking(executable, arguments) })
      }
      thread.start()
    }
  }

  private static func runBlocking(_ executable: String, _ arguments: [String]) throws -> (
    status: Int32, output: String
  ) {
    let process = Process()
    if let timeout = which("timeout") {
      process.executableURL = URL(fileURLWithPath: timeout)
      process.arguments = ["30", executable] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// A fresh directory for one test's files.
  static func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("loadctl-completions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }
}
