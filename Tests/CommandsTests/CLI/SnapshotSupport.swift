import Foundation
import Testing

/// Recorded expected outputs, one `Snapshots/<Name>.swift` file each.
///
/// Snapshots are Swift string literals rather than text files so that SwiftPM does not
/// see unhandled resources in the test target.
enum Snapshots {}

/// Compares text with a recorded snapshot, or re-records it when `LOADCTL_RECORD=1`.
///
/// Recording rewrites `Snapshots/<Name>.swift` next to this file and fails the test once, so
/// that a re-recorded run never passes silently; run the tests again to compare.
enum SnapshotAssertion {
  static var isRecording: Bool {
    ProcessInfo.processInfo.environment["LOADCTL_RECORD"] == "1"
  }

  static func check(
    _ actual: String, matches expected: String, named name: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard actual != expected else { return }
    if isRecording {
      do {
        try record(actual, named: name)
        Issue.record("Recorded snapshot '\(name)'; run again without LOADCTL_RECORD.")
      } catch {
        Issue.record("Could not record snapshot '\(name)': \(error)")
      }
      return
    }
    let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let line = zip(actualLines, expectedLines).prefix { $0 == $1 }.count
    let want = line < expectedLines.count ? String(expectedLines[line]) : "<end>"
    let got = line < actualLines.count ? String(actualLines[line]) : "<end>"
    Issue.record(
      """
      Snapshot '\(name)' differs at line \(line + 1):
        expected: \(want)
        actual:   \(got)
      Re-record with LOADCTL_RECORD=1 if the change is intended.
      """, sourceLocation: sourceLocation)
  }

  /// Writes `text` as `static let <name>` in `Snapshots/<Name>.swift`.
  ///
  /// The literal's lines are indented like the closing delimiter, which Swift strips, so
  /// the file stays `swift format` clean; the raw-string delimiter gets as many `#` as the
  /// text needs to be taken literally.
  static func record(_ text: String, named name: String) throws {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    let typeName = name.prefix(1).uppercased() + name.dropFirst()
    let body = text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "    " + $0 }
      .joined(separator: "\n")
    let source = """
      // Recorded with `LOADCTL_RECORD=1 swift test`; do not edit by hand.

      extension Snapshots {
        static let \(name) = \(hashes)\"\"\"
      \(body)
          \"\"\"\(hashes)
      }

      """
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Snapshots")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try source.write(
      to: directory.appendingPathComponent("\(typeName).swift"), atomically: true, encoding: .utf8)
  }
}
