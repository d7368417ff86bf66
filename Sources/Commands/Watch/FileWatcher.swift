import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// `--watch PATH`: the changes under some paths, through Linux inotify, as lines a run reads.
///
/// Every directory under each path is watched, those created later too; a file given as a path
/// is watched through its directory, so an editor's atomic save (a temporary file renamed over
/// it) is still seen. `.git`, `.build` and names matching an `--ignore` glob are left out. A
/// thread of its own reads the events and hands over one line per read, the path of a change,
/// through a bounded ``LineChannel``; it stops once the reader of ``changes`` has gone.
///
/// ```swift
/// let watcher = try FileWatcher(paths: ["Sources"], ignoring: ["*.swp"])
/// for await change in watcher.changes { print(change.text ?? "") }
/// ```
package final class FileWatcher: Sendable {
  /// Why watching cannot start.
  package enum Failure: Error, Equatable {
    /// A path does not exist (or cannot be looked at).
    case missing(path: String, reason: String)
    /// The system's limit of inotify watches or instances was reached.
    case tooFewWatches(String)
    /// Another error of the system.
    case system(String)

    package var message: String {
      switch self {
      case .missing(let path, let reason):
        "cannot watch '\(path.escapingControlCharacters)': \(reason)"
      case .tooFewWatches(let message), .system(let message): message
      }
    }
  }

  /// Names never watched: a repository's and SwiftPM's own churn.
  static let alwaysIgnored = [".git", ".build"]

  /// The changed paths, one line per batch of events read together.
  package let changes: RawLines
  private let channel: LineChannel

  /// Starts watching `paths` (each a directory, watched with everything under it, or a file).
  /// - Parameter ignoring: Globs (`fnmatch`) a name or a path under a watched one is left out
  ///   when it matches.
  /// - Throws: ``Failure``.
  package init(paths: [String], ignoring globs: [String]) throws(Failure) {
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else {
      let code = errno
      if code == EMFILE {
        throw .tooFewWatches(
          "too many inotify instances (raise fs.inotify.max_user_instances: sysctl "
            + "fs.inotify.max_user_instances=1024)")
      }
      throw .system("cannot start watching: \(InputFile.describeErrno(code))")
    }
    var tree = WatchTree(fd: fd, ignoring: globs)
    do throws(Failure) {
      for path in paths { try tree.add(root: path) }
    } catch {
      close(fd)
      throw error
    }
    let channel = LineChannel(capacity: 16)
    self.channel = channel
    changes = RawLines(channel: channel)
    let started = ReaderThread.start { [tree] in
      var tree = tree
      tree.read(into: channel)
      close(fd)
    }
    guard started else {
      close(fd)
      throw .system("cannot start watching: too few threads (raise 'ulimit -u')")
    }
  }

  /// The first of `paths` that does not exist (or cannot be looked at), with why; `nil` when
  /// every one does.
  package static func missing(_ paths: [String]) -> Failure? {
    for path in paths {
      var info = stat()
      if stat(path, &info) != 0 {
        return .missing(path: path, reason: InputFile.describeErrno(errno))
      }
    }
    return nil
  }
}

/// The watched directories of a ``FileWatcher`` and the reading of their events.
private struct WatchTree: Sendable {
  let fd: Int32
  let globs: [String]
  /// Each watch's directory.
  var directories: [Int32: String] = [:]
  /// The files given as paths, by their directory's watch: only they count there, unless the
  /// directory is watched whole too.
  var files: [Int32: Set<String>] = [:]
  /// The watches of directories watched whole.
  var whole: Set<Int32> = []
  var number = 0

  init(fd: Int32, ignoring globs: [String]) {
    self.fd = fd
    self.globs = globs
  }

  static let mask =
    UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
    | UInt32(IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

  func isIgnored(_ name: String, path: String) -> Bool {
    if FileWatcher.alwaysIgnored.contains(name) { return true }
    return globs.contains { glob in
      fnmatch(glob, name, 0) == 0 || fnmatch(glob, path, 0) == 0
    }
  }

  /// Watches `path`: a directory with everything under it, or a file through its directory.
  mutating func add(root path: String) throws(FileWatcher.Failure) {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw .missing(path: path, reason: InputFile.describeErrno(errno))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
      let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
      let watch = try addWatch(directory, root: true)
      files[watch, default: []].insert(name)
      return
    }
    try addTree(path, root: true)
  }

  /// Watches `directory` and every directory under it that is not ignored.
  mutating func addTree(_ directory: String, root: Bool) throws(FileWatcher.Failure) {
    let watch: Int32
    do throws(FileWatcher.Failure) {
      watch = try addWatch(directory, root: root)
    } catch {
      if root { throw error }
      if case .tooFewWatches = error { throw error }
      return
    }
    whole.insert(watch)
    guard let handle = opendir(directory) else { return }
    defer { closedir(handle) }
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard name != ".", name != "..", Int32(entry.pointee.d_type) == Int32(DT_DIR) else {
        continue
      }
      let path = directory == "/" ? "/" + name : directory + "/" + name
      if isIgnored(name, path: path) { continue }
      do throws(FileWatcher.Failure) {
        try addTree(path, root: false)
      } catch {
        if case .tooFewWatches = error { throw error }
      }
    }
  }

  /// One watch of `directory`.
  mutating func addWatch(_ directory: String, root: Bool) throws(FileWatcher.Failure) -> Int32 {
    let watch = inotify_add_watch(fd, directory, Self.mask)
    guard watch >= 0 else {
      let code = errno
      if code == ENOSPC {
        throw .tooFewWatches(
          "too few inotify watches for '\(directory.escapingControlCharacters)' (raise "
            + "fs.inotify.max_user_watches: sysctl fs.inotify.max_user_watches=524288)")
      }
      throw .missing(path: directory, reason: InputFile.describeErrno(code))
    }
    directories[watch] = directory
    return watch
  }

  /// Reads events until the consumer has gone, handing over one line per read that held a
  /// change; new directories are watched as they come.
  mutating func read(into channel: LineChannel) {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while !channel.isStopped {
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      // A short timeout: the thread notices a consumer that has gone.
      guard poll(&entry, 1, 100) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else {
        if count < 0, errno == EINTR || errno == EAGAIN { continue }
        break
      }
      guard let changed = handle(buffer[..<count]) else { continue }
      number += 1
      guard channel.push(RawLine(number: number, text: changed, problem: nil)) else { break }
    }
    channel.finish()
  }

  /// The first changed path of one read's events, if any counts.
  mutating func handle(_ bytes: ArraySlice<UInt8>) -> String? {
    var changed: String?
    var offset = bytes.startIndex
    let header = 16  // struct inotify_event: wd, mask, cookie, len
    while offset + header <= bytes.endIndex {
      let (watch, mask, length) = bytes.withUnsafeBytes { raw in
        let base = offset - bytes.startIndex
        return (
          raw.loadUnaligned(fromByteOffset: base, as: Int32.self),
          raw.loadUnaligned(fromByteOffset: base + 4, as: UInt32.self),
          Int(raw.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self))
        )
      }
      let nameBytes = bytes[(offset + header)..<min(offset + header + length, bytes.endIndex)]
      let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
      offset += header + length
      if mask & UInt32(IN_Q_OVERFLOW) != 0 {
        changed = changed ?? "(events overflowed)"
        continue
      }
      if mask & UInt32(IN_IGNORED) != 0 {
        directories[watch] = nil
        continue
      }
      guard let directory = directories[watch] else { continue }
      let path = name.isEmpty ? directory : directory + "/" + name
      if !whole.contains(watch), let only = files[watch], !only.contains(name) { continue }
      if !name.isEmpty, isIgnored(name, path: path) { continue }
      let isDirectory = mask & UInt32(IN_ISDIR) != 0
      if isDirectory, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, whole.contains(watch) {
        try? addTree(path, root: false)
      }
      changed = changed ?? path
    }
    return changed
  }
}
