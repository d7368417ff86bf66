import Dispatch
import LoadctlCore
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The pieces behind loadctl's behaviour under hostile conditions, without a process.
@Suite struct HostileUnitTests {
  @Test func aWriteErrorOtherThanEPIPEIsReportedWithItsCode() {
    let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
    defer { close(fd) }
    let reported = Locked<[Int32]>([])
    let broken = Locked(false)
    let writer = OutputWriter(
      fileDescriptor: fd, onBrokenPipe: { broken.withLock { $0 = true } },
      onError: { code in reported.withLock { $0.append(code) } })
    writer.write("line\n")
    writer.flush()
    writer.write("another\n")
    writer.flush()
    #expect(reported.withLock { $0 } == [ENOSPC])
    #expect(!broken.withLock { $0 })
    #expect(writer.failure == ENOSPC)
  }

  #if os(Linux)
    /// A flush that may not wait (a forced exit) stops at a line's end when the pipe fills: its
    /// reader never gets a torn JSON line. The pipe holds one 4096-byte slot; three 1,500-byte lines
    /// fit two whole ones, and it used to write 4,096 bytes, cutting the third.
    @Test func aFlushThatMayNotWaitEndsAtALinesEnd() throws {
      var fds: [Int32] = [0, 0]
      #expect(pipe(&fds) == 0)
      defer { for fd in fds { close(fd) } }
      let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, <linux/fcntl.h>
      try #require(fcntl(fds[1], setPipeSize, 4096) == 4096)
      let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1499) + [UInt8(ascii: "\n")]
      let bytes = line + line + line
      let failure = bytes.withUnsafeBytes { OutputWriter.writeAll(fd: fds[1], $0, waiting: false) }
      #expect(failure == nil)
      var read = [UInt8](repeating: 0, count: 8192)
      let count = Glibc.read(fds[0], &read, read.count)
      #expect(count == 3000)
      #expect(count > 0 && read[count - 1] == UInt8(ascii: "\n"))
    }
  #endif

  /// Once stdout failed (here `/dev/full`; a reader that left is the same), events still reach
  /// the recording: whether a failed write or the stdout watcher notices first must not decide
  /// what the recording holds.
  @Test(arguments: [true, false])
  func eventsReachTheRecordingAfterStdoutFailed(json: Bool) {
    let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
    defer { close(fd) }
    let writer = OutputWriter(fileDescriptor: fd, onBrokenPipe: {}, onError: { _ in })
    let recorded = Locked<[String]>([])
    let output = EventOutput(
      command: "profile", json: json, quiet: false, style: Style(enabled: false), writer: writer,
      elapsed: { .zero },
      lines: { printed in
        recorded.withLock { $0.append(String(decoding: printed.line, as: UTF8.self)) }
      })
    output.emit("first", text: "first")
    #expect(writer.isBroken)
    output.emit("second", text: "second")
    #expect(
      recorded.withLock { $0 } == [
        #"{"seq":1,"elapsed_ms":0,"command":"profile","event":"first"}"#,
        #"{"seq":2,"elapsed_ms":0,"command":"profile","event":"second"}"#,
      ])
  }

  /// A store's run holds flushes only when its executor flushes whenever the run waits: without
  /// that executor (no thread could be made for it) an event printed during the run must reach
  /// the pipe at once, not when the run returns.
  @Test(arguments: [false, true])
  func aRunHoldsFlushesOnlyWhenItsExecutorFlushesWhenIdle(flushedWhenIdle: Bool) async {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { for fd in fds { close(fd) } }
    // Only what is there is read; no end of file is waited for, so a child another test starts
    // meanwhile may inherit the write end harmlessly.
    _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
    let output = EventOutput(
      command: "counter", json: true, quiet: false, style: Style(enabled: false),
      writer: OutputWriter(fileDescriptor: fds[1]), elapsed: { .zero })
    if flushedWhenIdle { output.flushedWhenIdle() }
    let line = #"{"seq":1,"elapsed_ms":0,"command":"counter","event":"transition"}"# + "\n"
    let readDuringTheRun = await output.holdingFlushes {
      output.emit("transition", text: "transition")
      return Self.readAvailable(fds[0])
    }
    #expect(readDuringTheRun == (flushedWhenIdle ? "" : line))
    #expect(Self.readAvailable(fds[0]) == (flushedWhenIdle ? line : ""))
  }

  /// What a non-blocking descriptor has to read now, as text.
  static func readAvailable(_ fd: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(fd, &buffer, buffer.count)
    return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
  }

  @Test func aNonBlockingPipeIsWaitedForNotCut() {
    // A FIFO opened close-on-exec (atomically, unlike `pipe` + `fcntl`): a child another test
    // starts meanwhile must not hold the write end open, or the reader would never see the end.
    let path = "/tmp/loadctl-unit-\(getpid())-nonblocking.fifo"
    unlink(path)
    #expect(mkfifo(path, 0o600) == 0)
    defer { unlink(path) }
    let ends = [
      open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC),
    ]
    #expect(ends.allSatisfy { $0 >= 0 })
    _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) & ~O_NONBLOCK)
    let total = 256 * 1024
    // The pipe is filled until it refuses a byte before anything reads it, and the flush has
    // four times its capacity to write: each of its writes fills the pipe, so it meets EAGAIN and
    // must wait for the reader. No step waits for time to pass.
    var prefilled = 0
    for size in [4096, 1] {
      let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: size)
      while write(ends[1], bytes, size) == size { prefilled += size }
    }
    #expect(errno == EAGAIN)
    #expect(prefilled > 0 && prefilled < total)
    let received = Locked(0)
    let done = DispatchSemaphore(value: 0)
    let readEnd = ends[0]
    ReaderThread.start {
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        received.withLock { $0 += count }
      }
      done.signal()
    }
    let failed = Locked(false)
    let writer = OutputWriter(
      fileDescriptor: ends[1], onBrokenPipe: { failed.withLock { $0 = true } },
      onError: { _ in failed.withLock { $0 = true } })
    writer.write([UInt8](repeating: UInt8(ascii: "x"), count: total))
    writer.flush()
    close(ends[1])
    done.wait()  // the reader has seen end of input
    close(readEnd)
    #expect(!failed.withLock { $0 })
    #expect(received.withLock { $0 } == prefilled + total)
  }

  @Test func theSpinnerFitsTheWidth() {
    let frame = "⠋ loading…"
    #expect(Spinner.fitted(frame, columns: nil) == frame)
    #expect(Spinner.fitted(frame, columns: 80) == frame)
    #expect(Spinner.fitted(frame, columns: 6) == "⠋ loa")
    #expect(Spinner.fitted(frame, columns: 2) == "⠋")
    #expect(Spinner.fitted(frame, columns: 1) == nil)
  }

  @Test func ctrlZAndCtrlBackslashAreKeysOfTheirOwn() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1A, 0x1C, 0x03]) == [.suspend, .quit, .interrupt])
  }

  @Test func eachStoppingSignalSaysWhatApplies() {
    #expect(CommandRuntime.notice(for: .interrupt).contains("Ctrl-C again"))
    #expect(!CommandRuntime.notice(for: .terminate).contains("Ctrl-C"))
    #expect(CommandRuntime.notice(for: .hangup).hasPrefix("hangup"))
    #expect(ShutdownReason.signal(.hangup).endReason == "hangup")
    #expect(ShutdownReason.signal(.terminate).endReason == "terminated")
  }
}
