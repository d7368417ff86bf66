import Foundation
import Testing

/// What end-to-end tests of `--exec` need to see a run's child processes: a scratch directory
/// the commands write their pids to, and `/proc` to check what is left.
enum ChildProcesses {
  /// A fresh directory for one test's pid and marker files.
  static func scratch() throws -> String {
    let path = NSTemporaryDirectory() + "loadctl-exec-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The pids a command wrote to `file`, one per line.
  static func pids(in file: String) -> [Int32] {
    let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { Int32($0) }
  }

  /// Whether `pid` still exists (a zombie counts: it was not reaped).
  static func exists(_ pid: Int32) -> Bool {
    FileManager.default.fileExists(atPath: "/proc/\(pid)")
  }

  /// Expects that none of `pids` exists, waiting for the orphans' reaper (pid 1) at most the
  /// harness's timeout: a guard, not a measurement.
  static func expectGone(_ pids: [Int32]) async {
    let deadline = ContinuousClock.now.advanced(by: LoadctlProcess.defaultTimeout)
    while pids.contains(where: exists), ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    #expect(pids.filter(exists) == [], "still running or unreaped")
  }

  /// Waits until `file` lists `count` pids, and returns them.
  static func waitForPids(_ file: String, count: Int) async throws -> [Int32] {
    let deadline = ContinuousClock.now.advanced(by: LoadctlProcess.defaultTimeout)
    while ContinuousClock.now < deadline {
      let found = pids(in: file)
      if found.count >= count { return found }
      try await Task.sleep(for: .milliseconds(10))
    }
    throw HarnessError.serverFailed("\(file) never listed \(count) pids")
  }
}
