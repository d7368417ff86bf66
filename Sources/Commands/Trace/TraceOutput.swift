import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes `--trace` and `--timeline` once, at the end of the run however it ends.
final class TraceOutput: Sendable {
  private let recorder: TraceRecorder?
  private let path: String?
  private let timeline: Bool
  private let width: Int
  private let errors: OutputWriter
  private let written = Locked(false)

  init(recorder: TraceRecorder?, path: String?, timeline: Bool, width: Int, errors: OutputWriter) {
    self.recorder = recorder
    self.path = path
    self.timeline = timeline
    self.width = width
    self.errors = errors
  }

  /// Checks that the trace file can be written, before the run starts.
  /// - Returns: A problem to report as a usage error, or `nil`.
  func prepare() -> String? {
    guard let path else { return nil }
    if path == "-" { return "'--trace' needs a file path; '-' (stdout) would mix with events" }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      return "cannot write trace file '\(path)': \(InputFile.describeErrno(errno))"
    }
    close(fd)
    return nil
  }

  /// Writes the trace file and draws the timeline; later calls do nothing.
  func write(at time: Duration) {
    let first = written.withLock { done in
      defer { done = true }
      return !done
    }
    guard let recorder, first else { return }
    if let path {
      let text = recorder.chromeTrace(at: time)
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      if fd >= 0 {
        let file = OutputWriter(fileDescriptor: fd)
        file.write(text)
        file.flush()
        close(fd)
      }
    }
    if timeline {
      let (slices, tracks, end) = recorder.finish(at: time)
      errors.write(TimelineRenderer.render(slices: slices, tracks: tracks, end: end, width: width))
      errors.flush()
    }
  }
}
