import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `--trace` (`0600`, see ``PrivateFile``: it holds command lines, queries and results)
/// and `--timeline` once each, at the end of the run however it ends: the file
/// before the run's `end` is printed (so that `end` says whether it was written), the timeline
/// after.
final class TraceOutput: Sendable {
  private let recorder: TraceRecorder?
  private let path: String?
  private let timeline: Bool
  private let width: Int
  private let errors: OutputWriter
  private let fileWritten = Locked(false)
  private let timelineDrawn = Locked(false)

  init(recorder: TraceRecorder?, path: String?, timeline: Bool, width: Int, errors: OutputWriter) {
    self.recorder = recorder
    self.path = path
    self.timeline = timeline
    self.width = width
    self.errors = errors
  }

  /// Why `--trace` cannot be used.
  enum Problem {
    /// A command-line mistake (the trace would mix with stdout): exit 64.
    case usage(String)
    /// A file that cannot be written, like an input file that cannot be read: exit 65.
    case unwritable(String)
  }

  /// Checks that the trace file at `path` can be written, before the run starts.
  ///
  /// A path that names the file stdout already writes to (`--trace /dev/stdout > out.txt`)
  /// is refused: the trace would overwrite or interleave with the events. A FIFO is only checked
  /// for access, not opened, so its reader does not see an early end.
  /// - Returns: What is wrong, or `nil`.
  static func prepare(path: String?) -> Problem? {
    guard let path else { return nil }
    if path == "-" {
      return .usage("'--trace' needs a file path; '-' (stdout) would mix with events")
    }
    var target = stat()
    var output = stat()
    if stat(path, &target) == 0 {
      if fstat(1, &output) == 0, target.st_dev == output.st_dev, target.st_ino == output.st_ino,
        !Self.isDiscarding(target)
      {
        return .usage(
          "'--trace' names the same file as stdout ('\(path)'); the trace would mix with events")
      }
      if (target.st_mode & S_IFMT) == S_IFIFO {
        guard access(path, W_OK) == 0 else {
          return .unwritable("cannot write trace file '\(path)': \(InputFile.describeErrno(errno))")
        }
        return nil
      }
    }
    let fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
      return .unwritable("cannot write trace file '\(path)': \(InputFile.describeErrno(errno))")
    }
    close(fd)
    return nil
  }

  /// Whether the trace file is a FIFO: its reader may wait for the run's `end` before it opens
  /// it, so it is written after `end`.
  var isFIFO: Bool {
    var info = stat()
    guard recorder != nil, let path, stat(path, &info) == 0 else { return false }
    return info.st_mode & S_IFMT == S_IFIFO
  }

  /// Whether `info` is a character device that is not a terminal, such as `/dev/null`: sharing
  /// it with stdout mixes nothing.
  static func isDiscarding(_ info: stat) -> Bool {
    guard (info.st_mode & S_IFMT) == S_IFCHR else { return false }
    return isatty(1) != 1
  }

  /// Writes the trace file and draws the timeline; later calls do nothing.
  ///
  /// - Parameter forced: Never wait: a FIFO without a reader is skipped (a forced exit).
  /// - Returns: Why the trace file could not be written, or `nil`.
  @discardableResult
  func write(at time: Duration, forced: Bool = false) -> String? {
    let problem = writeFile(at: time, forced: forced)
    drawTimeline(at: time)
    return problem
  }

  /// Writes the trace file, if there is one and it is not written yet.
  ///
  /// - Parameter forced: Never wait: a FIFO without a reader is skipped (a forced exit).
  /// - Returns: Why the trace file could not be written, or `nil`.
  func writeFile(at time: Duration, forced: Bool = false) -> String? {
    guard let recorder, let path, Self.once(fileWritten) else { return nil }
    let text = recorder.chromeTrace(at: time)
    var fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK)
    if fd < 0, errno == ENXIO, !forced {
      // A FIFO whose reader is not there yet: wait for it (a signal still ends the process).
      fd = open(path, O_WRONLY | O_CLOEXEC)
    }
    guard fd >= 0 else {
      return "cannot write trace file '\(path)': \(InputFile.describeErrno(errno))"
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    let failure = Locked<Int32?>(nil)
    let file = OutputWriter(
      fileDescriptor: fd, onBrokenPipe: { failure.withLock { $0 = EPIPE } },
      onError: { code in failure.withLock { $0 = code } })
    file.write(text)
    file.flush()
    if close(fd) != 0, errno != EINTR { failure.withLock { $0 = $0 ?? errno } }
    guard let code = failure.withLock({ $0 }) else { return nil }
    return "cannot write trace file '\(path)': \(InputFile.describeErrno(code))"
  }

  /// Draws `--timeline` on stderr, if asked for and not drawn yet.
  func drawTimeline(at time: Duration) {
    guard let recorder, timeline, Self.once(timelineDrawn) else { return }
    let (slices, tracks, end) = recorder.finish(at: time)
    errors.write(TimelineRenderer.render(slices: slices, tracks: tracks, end: end, width: width))
    errors.flush()
  }

  /// Whether this is the first call for `flag`, which it sets.
  private static func once(_ flag: Locked<Bool>) -> Bool {
    flag.withLock { done in
      defer { done = true }
      return !done
    }
  }
}
