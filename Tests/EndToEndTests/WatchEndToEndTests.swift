import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// `counter --watch PATH`: a file change is an input action, end to end. Each test writes a file
/// only once it has seen loadctl's `start` (the watches are in place before it is printed), and
/// waits for the new command's output.
@Suite(.processSlots) struct WatchEndToEndTests {
  private let root: String

  init() throws {
    root = NSTemporaryDirectory() + "loadctl-watch-e2e-\(UUID().uuidString)"
    try FileManager.default.createDirectory(
      atPath: root + "/Sources", withIntermediateDirectories: true)
  }

  private func write(_ text: String, to path: String) throws {
    try text.write(toFile: root + "/" + path, atomically: false, encoding: .utf8)
  }

  private static func output(_ text: String) -> @Sendable (String) -> Bool {
    { $0.contains(#""event":"output""#) && $0.contains(#""line":"\#(text)""#) }
  }

  @Test func aWrittenFileRunsTheCommandAgainWithWhatWasWritten() async throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    try write("v0", to: "Sources/main.txt")
    let loadctl = try LoadctlProcess.start([
      "counter", "--json", "--watch", root + "/Sources", "--policy", "latest",
      "--exec", "cat \(root)/Sources/main.txt",
    ])
    let start = try await loadctl.waitForLine(containing: #""event":"start""#)
    #expect(start.contains(#""watch":["\#(root)/Sources"],"watch_settle_ms":50,"ignore":[]"#))
    #expect(start.contains(#""on_change":"delayed_increment""#))
    try write("v1", to: "Sources/main.txt")
    try await loadctl.waitForLine(where: Self.output("v1"))
    // A directory made later is watched too, and an atomic save still counts.
    try FileManager.default.createDirectory(
      atPath: root + "/Sources/sub", withIntermediateDirectories: false)
    try await loadctl.waitForLine(containing: #""event":"effect_started""#)
    try write("v2", to: "Sources/sub/.tmp")
    #expect(rename(root + "/Sources/sub/.tmp", root + "/Sources/main.txt") == 0)
    try await loadctl.waitForLine(where: Self.output("v2"))
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM), "\(loadctl.transcript)")
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "counter")
      #expect(try await SchemaValidator.failures(of: loadctl.stdoutLines, schema: schema) == [])
    }
  }

  /// The README's example as written, in a package directory, with a `swift` of the test's own.
  @Test func theReadmeExampleRebuildsOnASave() async throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    let bin = root + "/bin"
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    try "#!/bin/sh\necho \"Build of $(cat Sources/main.swift) complete!\"\n".write(
      toFile: bin + "/swift", atomically: true, encoding: .utf8)
    #expect(chmod(bin + "/swift", 0o755) == 0)
    try write("v0", to: "Sources/main.swift")
    let loadctl = try LoadctlProcess.start(
      executable: "/bin/sh",
      arguments: [
        "-c",
        "cd \"$1\" && exec \"$2\" counter --watch Sources --policy latest --exec 'swift build'",
        "sh", root, BinaryLocator.locate(),
      ],
      environment: ["PATH": bin + ":/usr/bin:/bin"])
    // Text mode prints nothing until a change: the save is made again until one is seen.
    try await Polling.until("a rebuild after a save", every: .milliseconds(300)) {
      try write("v1", to: "Sources/main.swift")
      return loadctl.stdoutLines.contains { $0.hasSuffix("| Build of v1 complete!") }
    }
    loadctl.send(signal: SIGINT)
    #expect(try await loadctl.waitForExit() == .signaled(SIGINT), "\(loadctl.transcript)")
  }

  @Test func aMissingPathIsOneErrorLineAnd65() async throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    let outcome = try await LoadctlProcess.run(["counter", "--watch", root + "/nope", "d"])
    #expect(outcome.termination == .exited(65))
    #expect(outcome.stderr == "Error: cannot watch '\(root)/nope': No such file or directory\n")
    #expect(outcome.stdout.isEmpty)
  }
}

/// Whether this machine lets a user namespace of its own lower its inotify limits.
private let canLimitWatches: Bool = {
  let probe = Process()
  probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
  probe.arguments = ["-U", "-r", "/bin/sh", "-c", "echo 2 > /proc/sys/user/max_inotify_watches"]
  probe.standardError = FileHandle.nullDevice
  guard (try? probe.run()) != nil else { return false }
  probe.waitUntilExit()
  return probe.terminationStatus == 0
}()

/// Too few inotify watches for the tree: one clear line and 71, with the limit lowered in a user
/// namespace of the test's own (`/proc/sys/user/max_inotify_watches`, per namespace).
@Suite(.processSlots) struct WatchLimitEndToEndTests {
  @Test(.enabled(if: canLimitWatches, "no user namespace: unshare -U -r is not allowed here"))
  func tooFewWatchesIsOneErrorLineAnd71() async throws {
    let directory = NSTemporaryDirectory() + "loadctl-watch-limit-\(UUID().uuidString)"
    try FileManager.default.createDirectory(
      atPath: directory + "/a/b/c", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let loadctl = try LoadctlProcess.start(
      executable: "/usr/bin/unshare",
      arguments: [
        "-U", "-r", "/bin/sh", "-c",
        "echo 2 > /proc/sys/user/max_inotify_watches && exec \"$1\" counter --watch \"$2\" d",
        "sh", BinaryLocator.locate(), directory,
      ])
    #expect(try await loadctl.waitForExit() == .exited(71))
    #expect(loadctl.stderrLines.count == 1)
    #expect(loadctl.stderrLines.first?.hasPrefix("Error: too few inotify watches for '") == true)
    #expect(loadctl.stderrLines.first?.contains("fs.inotify.max_user_watches") == true)
    #expect(loadctl.stdoutLines.isEmpty)
  }
}

/// `profile --watch PATH`: a save of the profile reloads it.
@Suite(.processSlots) struct ProfileWatchEndToEndTests {
  @Test func aSaveOfTheFileReloadsIt() async throws {
    let directory = NSTemporaryDirectory() + "loadctl-profile-watch-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/me.json"
    try #"{"name":"Ada"}"#.write(toFile: file, atomically: true, encoding: .utf8)
    let loadctl = try LoadctlProcess.start(["profile", "--json", "--file", file, "--watch", file])
    try await loadctl.waitForLine(containing: #""profile":{"name":"Ada"}"#)
    // An editor's save: a temporary file renamed over the profile.
    try #"{"name":"Grace"}"#.write(toFile: file, atomically: true, encoding: .utf8)
    try await loadctl.waitForLine(containing: #""profile":{"name":"Grace"}"#)
    loadctl.send(signal: SIGTERM)
    #expect(try await loadctl.waitForExit() == .signaled(SIGTERM), "\(loadctl.transcript)")
    if SchemaValidator.isAvailable {
      let schema = SchemaValidator.schema(for: "profile")
      #expect(try await SchemaValidator.failures(of: loadctl.stdoutLines, schema: schema) == [])
    }
  }
}
