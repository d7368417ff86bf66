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

  /// The fields of `/proc/PID/stat` after the command name (state letter, parent, group, …);
  /// `nil` once the process is gone.
  static func stat(of pid: Int32) -> [Substring]? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ")
  }

  /// The state letter of `pid` (`R`, `S`, `T`, `Z`), or `nil` once it is gone.
  static func state(of pid: Int32) -> Character? {
    stat(of: pid)?.first?.first
  }

  /// Whether `pid` is a live process (not gone, not a zombie).
  static func isRunning(_ pid: Int32) -> Bool {
    guard let state = state(of: pid) else { return false }
    return state != "Z" && state != "X"
  }

  /// Expects that none of `pids` exists, waiting for the orphans' reaper (pid 1) at most the
  /// harness's timeout: a guard, not a measurement.
  static func expectGone(_ pids: [Int32]) async {
    try? await Polling.until("\(pids) to be gone", every: .milliseconds(20)) {
      !pids.contains(where: exists)
    }
    #expect(pids.filter(exists) == [], "still running or unreaped: \(pids.map(describe))")
  }

  /// `pid`, its state letter and its parent, from `/proc/PID/stat`, for a failure's message.
  static func describe(_ pid: Int32) -> String {
    guard let fields = stat(of: pid) else { return "\(pid) gone" }
    return "\(pid) \(fields.first ?? "?") parent \(fields.dropFirst().first ?? "?")"
  }

  /// Waits until `pid` no longer runs (gone or a zombie); `false` if the failsafe ended the wait.
  static func waitUntilStopped(_ pid: Int32) async -> Bool {
    (try? await Polling.until("pid \(pid) to stop") { !isRunning(pid) }) != nil
  }

  /// Waits until `file` lists `count` pids, and returns them.
  static func waitForPids(_ file: String, count: Int) async throws -> [Int32] {
    try await Polling.until("\(file) to list \(count) pids") {
      let found = pids(in: file)
      return found.count >= count ? found : nil
    }
  }
}
