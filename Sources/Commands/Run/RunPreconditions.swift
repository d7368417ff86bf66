import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a run needs before anything starts, checked once: file descriptors and threads (in
/// `main`: with too few, libdispatch traps or hangs without a word, so each check says so in one
/// `Error:` line and ends the process with 71 instead), and files it may write.
extension CommandRuntime {
  /// File descriptors a run needs beyond 0, 1 and 2: the runtime's event and signal descriptors,
  /// an input file, a trace file and a recording, and one command's pipes while it is spawned
  /// (`--exec`, `--url`). With fewer, libdispatch traps or hangs, or the first command cannot
  /// start; 13 are the most a run with one command was seen to hold at once.
  static let descriptorsNeeded = 16
  /// What `loadctl replay` needs of them: it spawns no command and opens no input, only the
  /// runtime's descriptors, the recording (read before the flow starts), and its own `--trace`
  /// file and `/dev/null` for `--check`.
  static let replayDescriptorsNeeded = 8

  /// One `Error:` line and status 71 unless the file descriptors `command` needs
  /// (``descriptorsNeeded``, ``replayDescriptorsNeeded`` for `replay`) can be opened; call
  /// before anything starts a thread or a dispatch queue.
  /// - Returns: How the process must end when there are too few; `nil` when there are enough.
  package static func requireDescriptors(for command: String) -> ProcessEnd? {
    let descriptorsNeeded =
      command == ReplayCommand.spec.name ? replayDescriptorsNeeded : descriptorsNeeded
    var taken: [Int32] = []
    while taken.count < descriptorsNeeded {
      let fd = fcntl(2, F_DUPFD_CLOEXEC, 3)
      guard fd >= 0 else { break }
      taken.append(fd)
    }
    for fd in taken { close(fd) }
    guard taken.count < descriptorsNeeded else { return nil }
    Loadctl.printErr(
      ErrorLine.text(
        "too few file descriptors: loadctl needs \(descriptorsNeeded) besides stdin, stdout "
          + "and stderr, and only \(taken.count) can be opened (raise 'ulimit -n')"))
    return .exit(ExitStatus.systemError)
  }

  /// Threads a run needs at once, the main thread included: the runtime's workers, the signal
  /// thread, stdout's watcher and a command's reader. With fewer, libdispatch retries making a
  /// worker once a second, for ever, and the run hangs without a word.
  static let threadsNeeded = 8

  /// One `Error:` line and status 71 unless ``threadsNeeded`` threads can run at once (the
  /// process limit, `ulimit -u`, or a container's, counts threads); call before anything starts
  /// a thread or a dispatch queue. The threads it starts wait for each other, then end.
  /// - Returns: How the process must end when there are too few; `nil` when there are enough.
  package static func requireThreads() -> ProcessEnd? {
    var gate: [Int32] = [-1, -1]
    guard pipe(&gate) == 0 else { return nil }
    defer { close(gate[0]) }
    let readEnd = gate[0]
    var started: [pthread_t] = []
    var failure: Int32 = 0
    while started.count < threadsNeeded - 1 {
      #if canImport(Glibc)
        var thread = pthread_t()
      #else
        var thread: pthread_t?
      #endif
      var attributes = pthread_attr_t()
      pthread_attr_init(&attributes)
      pthread_attr_setstacksize(&attributes, 64 * 1024)
      let box = Unmanaged.passRetained(ProbeGate(readEnd)).toOpaque()
      let result = pthread_create(
        &thread, &attributes,
        { raw in
          guard let raw else { return nil }
          let gate = Unmanaged<ProbeGate>.fromOpaque(raw).takeRetainedValue()
          var byte: UInt8 = 0
          while read(gate.descriptor, &byte, 1) < 0, errno == EINTR {}
          return nil
        }, box)
      pthread_attr_destroy(&attributes)
      guard result == 0 else {
        Unmanaged<ProbeGate>.fromOpaque(box).release()
        failure = result
        break
      }
      #if canImport(Glibc)
        started.append(thread)
      #else
        if let thread { started.append(thread) }
      #endif
    }
    // Closing the write end wakes every waiting thread with end of file.
    close(gate[1])
    for thread in started { pthread_join(thread, nil) }
    guard failure != 0 else { return nil }
    Loadctl.printErr(
      ErrorLine.text(
        "too few threads: loadctl needs \(threadsNeeded) at once and only \(started.count + 1) "
          + "could start (\(String(cString: strerror(failure)))); raise 'ulimit -u', or the "
          + "container's process limit"))
    return .exit(ExitStatus.systemError)
  }

  private final class ProbeGate: Sendable {
    let descriptor: Int32
    init(_ descriptor: Int32) { self.descriptor = descriptor }
  }

  /// Refuses a `--record` or `--trace` the run must not write (``writtenFileConflict(_:)``, 64)
  /// and a trace file that cannot be written (64 or 65), before anything starts; `command` names
  /// the subcommand in the error (a replay's own, not the recorded run's).
  static func checkWrittenFiles(_ run: RunOptions, command: String) throws(EarlyExit) {
    if let conflict = writtenFileConflict(run) {
      throw Loadctl.fail(usage: .invalidValue(conflict, command: command), json: run.json)
    }
    switch TraceOutput.prepare(path: run.tracePath) {
    case .usage(let problem):
      throw Loadctl.fail(usage: .invalidValue(problem, command: command), json: run.json)
    case .unwritable(let problem):
      throw Loadctl.fail(badInput: problem, command: command, json: run.json)
    case nil:
      break
    }
  }

  /// Why `--record` or `--trace` must not be written, checked before either file is truncated:
  /// it names a file the run reads (which writing would destroy), or the recording names the
  /// file stdout writes to or the trace file. (`--trace` and stdout: `TraceOutput.prepare(path:)`.)
  static func writtenFileConflict(_ run: RunOptions) -> String? {
    let record = run.recordPath.flatMap { FileIdentity(path: $0) }
    let trace = run.tracePath.flatMap { FileIdentity(path: $0) }
    let read = run.readFiles.compactMap { FileIdentity(path: $0) }
    for (option, path, target) in [
      ("--record", run.recordPath, record), ("--trace", run.tracePath, trace),
    ] {
      // Only a regular file holds what a run reads and a write would destroy.
      guard let path, let target, target.isRegularFile, read.contains(target) else { continue }
      return "'\(option)' names a file the run reads ('\(path)'); writing it would destroy it"
    }
    guard let path = run.recordPath else { return nil }
    if path == run.tracePath {
      return "'--record' and '--trace' name the same file ('\(path)')"
    }
    if record == nil, trace == nil, let tracePath = run.tracePath,
      let new = FileIdentity.newFile(path), new == FileIdentity.newFile(tracePath)
    {
      // Neither exists yet: `t.json` and `./t.json` would be made as one file.
      return "'--record' and '--trace' name the same file ('\(path)')"
    }
    guard let record, !TraceOutput.isDiscarding(record.info) else { return nil }
    if record == FileIdentity(path: "-", descriptor: 1) {
      return "'--record' names the same file as stdout ('\(path)'); events would mix into it"
    }
    if record == trace {
      return "'--record' and '--trace' name the same file ('\(path)')"
    }
    return nil
  }

  /// A file as the system knows it: two paths (or a path and a descriptor) name the same file
  /// when their device and inode are equal.
  private struct FileIdentity: Equatable {
    let info: stat

    /// The file at `path` (`-`: the one open as `descriptor`), if there is one.
    init?(path: String, descriptor: Int32 = 0) {
      var info = stat()
      guard path == "-" ? fstat(descriptor, &info) == 0 : stat(path, &info) == 0 else {
        return nil
      }
      self.info = info
    }

    var isRegularFile: Bool { info.st_mode & S_IFMT == S_IFREG }

    /// Where a file that does not exist yet would be made: its directory's device and inode and
    /// its name; `nil` when the directory does not exist or the name is not a file's.
    static func newFile(_ path: String) -> [String]? {
      let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init)
      guard let name, name != ".", name != "..", !path.hasSuffix("/") else { return nil }
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { String(path[...$0]) } ?? "."
      guard let parent = FileIdentity(path: directory) else { return nil }
      return [String(parent.info.st_dev), String(parent.info.st_ino), name]
    }

    static func == (left: Self, right: Self) -> Bool {
      left.info.st_dev == right.info.st_dev && left.info.st_ino == right.info.st_ino
    }
  }
}
