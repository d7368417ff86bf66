import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `--watch`'s input on the test clock: a burst of changes within the settle time is one action,
/// after the arguments' script.
@Suite struct WatchInputTests {
  private static func changes(_ count: Int) -> RawLines {
    RawLines((1...count).map { RawLine(number: $0, text: "src/file\($0)", problem: nil) })
  }

  /// The actions and their times when changes come at `times` (milliseconds) on the test clock.
  private static func actions(changesAt times: [Int], settle: Duration) async -> [String] {
    let clock = VirtualClock()
    let channel = LineChannel(capacity: 16)
    let input = WatchInput(
      before: AnyInput([CounterAction.increment], then: nil), changes: RawLines(channel: channel),
      action: CounterAction.delayedIncrement, settle: settle, clock: clock)
    let seen = Locked<[String]>([])
    let feeder = clock.launch {
      var now = 0
      for (number, time) in times.enumerated() {
        try? await clock.sleep(for: .milliseconds(time - now))
        now = time
        _ = channel.push(RawLine(number: number + 1, text: "src/file", problem: nil))
      }
      try? await clock.sleep(for: .seconds(1))
      channel.finish()
    }
    let task = clock.launch {
      for await action in input {
        let offset = clock.now.offset
        seen.withLock { $0.append("\(action.name)@\(offset.nanoseconds / 1_000_000)") }
      }
    }
    clock.run()
    await feeder.value
    await task.value
    return seen.withLock { $0 }
  }

  @Test func theFirstChangeIsAnActionAtOnceAndTheRestOfItsBurstOneMoreAtTheSettleTime() async {
    // The leading edge at 0; the writes at 10 and 20 one more action at 50 (the window after
    // the first), whose own window ends at 100 with nothing; the write at 220 again at once.
    let actions = await Self.actions(changesAt: [0, 10, 20, 220], settle: .milliseconds(50))
    #expect(
      actions == [
        "increment@0", "delayed_increment@0", "delayed_increment@50", "delayed_increment@220",
      ])
  }

  @Test func aLoneChangeIsOneAction() async {
    let actions = await Self.actions(changesAt: [5], settle: .milliseconds(50))
    #expect(actions == ["increment@0", "delayed_increment@5"])
  }

  @Test func aChangeEveryFewMillisecondsIsAnActionPerSettleTime() async {
    let actions = await Self.actions(
      changesAt: Array(stride(from: 0, to: 120, by: 7)), settle: .milliseconds(50))
    #expect(
      actions == [
        "increment@0", "delayed_increment@0", "delayed_increment@50", "delayed_increment@100",
        "delayed_increment@150",
      ])
  }
}

/// The inotify watcher on a real directory: what counts as a change, and what is left out.
@Suite(.serialized) struct FileWatcherTests {
  private let root: String

  init() throws {
    root = NSTemporaryDirectory() + "loadctl-watch-\(UUID().uuidString)"
    try FileManager.default.createDirectory(
      atPath: root + "/.git", withIntermediateDirectories: true)
  }

  /// The next change the watcher hands over, or `nil` after `timeout`.
  private static func nextChange(
    _ iterator: inout RawLines.Iterator, timeout: Duration = .seconds(10)
  ) async -> String? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if let line = iterator.nextReady() { return line.text }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return nil
  }

  /// Whether a change of `path` comes (those of other paths before it are passed over).
  private static func change(
    of path: String, _ iterator: inout RawLines.Iterator, seen: inout [String]
  ) async -> Bool {
    while let next = await nextChange(&iterator) {
      seen.append(next)
      if next == path { return true }
    }
    return false
  }

  private func write(_ text: String, to path: String) throws {
    try text.write(toFile: root + "/" + path, atomically: false, encoding: .utf8)
  }

  @Test func aWriteANewDirectoryAndAnAtomicSaveAreChangesAndGitIsNot() async throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    let watcher = try FileWatcher(paths: [root], ignoring: ["*.swp"])
    var changes = watcher.changes.makeAsyncIterator()
    var seen: [String] = []
    try write("1", to: "a.txt")
    #expect(await Self.change(of: root + "/a.txt", &changes, seen: &seen))
    // The write's later events (its close) may come apart: once they are in, nothing is left
    // for the next change to be read with.
    while await Self.nextChange(&changes, timeout: .milliseconds(100)) != nil {}
    try FileManager.default.createDirectory(
      atPath: root + "/sub", withIntermediateDirectories: false)
    #expect(await Self.change(of: root + "/sub", &changes, seen: &seen))
    try write("2", to: "sub/b.txt")
    #expect(await Self.change(of: root + "/sub/b.txt", &changes, seen: &seen), "\(seen)")
    // Left out: .git and an ignored name; then an editor's save, a temporary file renamed over.
    try write("ref", to: ".git/HEAD")
    try write("swap", to: "a.txt.swp")
    try write("3", to: "sub/.b.tmp")
    #expect(rename(root + "/sub/.b.tmp", root + "/sub/b.txt") == 0)
    // The save's events may be read together and handed over as its first path.
    let save = await Self.nextChange(&changes)
    #expect(save == root + "/sub/.b.tmp" || save == root + "/sub/b.txt", "\(seen)")
    while let next = await Self.nextChange(&changes, timeout: .milliseconds(200)) {
      seen.append(next)
    }
    #expect(!seen.contains { $0.contains(".git") || $0.hasSuffix(".swp") }, "\(seen)")
  }

  @Test func aFileGivenAsThePathIsStillWatchedAfterAnAtomicSave() async throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    try write("0", to: "config.json")
    let watcher = try FileWatcher(paths: [root + "/config.json"], ignoring: [])
    var changes = watcher.changes.makeAsyncIterator()
    try write("other", to: "other.txt")
    #expect(await Self.nextChange(&changes, timeout: .milliseconds(200)) == nil)
    for round in 1...2 {
      try write("\(round)", to: ".config.json.tmp")
      #expect(rename(root + "/.config.json.tmp", root + "/config.json") == 0)
      var seen: [String] = []
      #expect(await Self.change(of: root + "/config.json", &changes, seen: &seen), "\(round)")
      #expect(seen.allSatisfy { $0 == root + "/config.json" }, "\(seen)")
    }
  }

  @Test func aMissingPathIsOneClearFailure() throws {
    defer { try? FileManager.default.removeItem(atPath: root) }
    let missing = root + "/nope"
    #expect(
      FileWatcher.missing([root, missing])
        == .missing(path: missing, reason: "No such file or directory"))
    #expect(throws: FileWatcher.Failure.missing(path: missing, reason: "No such file or directory"))
    {
      try FileWatcher(paths: [missing], ignoring: [])
    }
  }
}
