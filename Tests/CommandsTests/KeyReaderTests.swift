import LoadctlCore
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The key reader over a pipe: bursts of everything there to read, escape sequences that reads
/// cut in two, and Esc pressed alone, which arrives once no more bytes come. The time limit turns a reader that
/// waits forever into a failure.
@Suite(.timeLimit(.minutes(1))) struct KeyReaderTests {
  /// A FIFO's read and write ends, both close-on-exec: a child another test starts meanwhile
  /// must not hold the write end open, or the reader would never see the end of input.
  static func makePipe(_ name: String) -> (read: Int32, write: Int32) {
    let path = "/tmp/loadctl-unit-\(getpid())-keys-\(name).fifo"
    unlink(path)
    #expect(mkfifo(path, 0o600) == 0)
    defer { unlink(path) }
    let readEnd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    let writeEnd = open(path, O_WRONLY | O_CLOEXEC)
    #expect(readEnd >= 0 && writeEnd >= 0)
    _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
    return (readEnd, writeEnd)
  }

  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      #expect(count > 0)
      guard count > 0 else { return }
      written += count
    }
  }

  /// Returns once everything written to the FIFO so far has been read; the reader thread reads
  /// at once, so this waits for no time to pass (the deadline only guards against a reader
  /// that never reads).
  static func waitUntilTaken(_ fd: Int32) {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let deadline = ContinuousClock.now + .seconds(30)
    while poll(&entry, 1, 0) > 0, ContinuousClock.now < deadline { sched_yield() }
    #expect(poll(&entry, 1, 0) == 0)
  }

  /// Held down or pasted, 3,000 left arrows: each arrow is one Left key, never Esc (which
  /// quits) or a `D`.
  @Test func aBurstOfArrowKeysIsOnlyArrowKeys() async {
    let (readEnd, writeEnd) = Self.makePipe("burst")
    let keys = KeyReader.bursts(fd: readEnd)
    let arrows = Array(repeating: [UInt8]([0x1B, 0x5B, 0x44]), count: 3000).joined()
    Self.writeAll(writeEnd, Array(arrows) + [0x71])
    close(writeEnd)
    var received: [Key] = []
    for await burst in keys { received += burst }
    close(readEnd)
    #expect(received == Array(repeating: .left, count: 3000) + [.character("q")])
  }

  /// A paste bigger than one read (200,000 characters, in a FIFO enlarged to hold them all) is
  /// one burst: what is there to read is read on without waiting, however many reads it takes.
  @Test func everythingThereToReadIsOneBurst() async {
    let (readEnd, writeEnd) = Self.makePipe("paste")
    #if os(Linux)
      let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
      #expect(fcntl(writeEnd, setPipeSize, 256 * 1024) >= 256 * 1024)
    #endif
    let paste = [UInt8](repeating: UInt8(ascii: "a"), count: 200_000)
    Self.writeAll(writeEnd, paste)
    var keys = KeyReader.bursts(fd: readEnd).makeAsyncIterator()
    let first = await keys.next()
    #expect(first?.count == paste.count)
    #expect(first?.allSatisfy { $0 == .character("a") } == true)
    close(writeEnd)
    #expect(await keys.next() == nil)
    close(readEnd)
  }

  /// A paste's next piece, handed over a moment later, joins its burst: a burst of more bytes
  /// than typing gives between two reads waits for more as an escape sequence's rest is (here
  /// until the end of input).
  @Test func aPastesNextPieceJoinsItsBurst() async {
    let (readEnd, writeEnd) = Self.makePipe("pieces")
    var keys = KeyReader.bursts(fd: readEnd, escapeTimeout: .seconds(600)).makeAsyncIterator()
    let piece = [UInt8](repeating: UInt8(ascii: "a"), count: KeyReader.pasteBytes)
    Self.writeAll(writeEnd, piece)
    Self.waitUntilTaken(readEnd)
    Self.writeAll(writeEnd, piece)
    close(writeEnd)
    #expect(await keys.next()?.count == 2 * piece.count)
    #expect(await keys.next() == nil)
    close(readEnd)
  }

  /// A few keys typed together are a burst at once, without waiting for more.
  @Test func aFewKeysAreABurstAtOnce() async {
    let (readEnd, writeEnd) = Self.makePipe("few")
    var keys = KeyReader.bursts(fd: readEnd, escapeTimeout: .seconds(600)).makeAsyncIterator()
    Self.writeAll(writeEnd, Array("ab".utf8))
    #expect(await keys.next() == [.character("a"), .character("b")])
    close(writeEnd)
    #expect(await keys.next() == nil)
    close(readEnd)
  }

  /// When what is there to read ends inside an escape sequence, the rest that comes in time
  /// joins the same burst.
  @Test func theRestOfASequenceJoinsItsBurst() async {
    let (readEnd, writeEnd) = Self.makePipe("joins")
    var keys = KeyReader.bursts(fd: readEnd, escapeTimeout: .seconds(600)).makeAsyncIterator()
    Self.writeAll(writeEnd, Array("ab\u{1B}".utf8))
    Self.waitUntilTaken(readEnd)
    Self.writeAll(writeEnd, Array("[Dc".utf8))
    #expect(await keys.next() == [.character("a"), .character("b"), .left, .character("c")])
    close(writeEnd)
    #expect(await keys.next() == nil)
    close(readEnd)
  }

  /// An escape byte read alone waits for the rest of its sequence in a later read.
  @Test func theRestOfASequenceInALaterReadIsWaitedFor() async {
    let (readEnd, writeEnd) = Self.makePipe("later")
    let keys = KeyReader.bursts(fd: readEnd, escapeTimeout: .seconds(600))
    Self.writeAll(writeEnd, [0x1B])
    Self.waitUntilTaken(readEnd)
    Self.writeAll(writeEnd, Array("[Dq".utf8))
    close(writeEnd)
    var received: [Key] = []
    for await burst in keys { received += burst }
    close(readEnd)
    #expect(received == [.left, .character("q")])
  }

  /// Esc pressed alone: no more bytes come, and after the short wait it is the Esc key.
  @Test func escAloneArrivesWhenNoMoreBytesCome() async {
    let (readEnd, writeEnd) = Self.makePipe("esc")
    var keys = KeyReader.bursts(fd: readEnd).makeAsyncIterator()
    Self.writeAll(writeEnd, [0x1B])
    #expect(await keys.next() == [.escape])
    close(writeEnd)
    while await keys.next() != nil {}
    close(readEnd)
  }

  @Test func pollWaitsAreWholeMillisecondsRoundedUp() {
    #expect(KeyReader.milliseconds(.milliseconds(50)) == 50)
    #expect(KeyReader.milliseconds(.microseconds(1)) == 1)
    #expect(KeyReader.milliseconds(.microseconds(1500)) == 2)
    #expect(KeyReader.milliseconds(.zero) == 0)
    #expect(KeyReader.milliseconds(.milliseconds(-5)) == 0)
    #expect(KeyReader.milliseconds(.seconds(Int64.max)) == Int32.max)
  }
}
