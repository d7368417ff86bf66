import Dispatch
import LoadctlCore
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Writes `text` to a new temporary file and returns it open for reading.
private func temporaryFile(_ text: String) -> (fd: Int32, path: String) {
  let path = "/tmp/ticker-lines-\(UInt64.random(in: 0...UInt64.max))"
  let writer = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
  precondition(writer >= 0, "cannot create \(path)")
  let output = OutputWriter(fileDescriptor: writer)
  output.write(text)
  output.flush()
  close(writer)
  return (open(path, O_RDONLY | O_CLOEXEC), path)
}

/// A pipe whose write end is fed `count` numbered lines from a dispatch thread, then closed. A
/// reader that stops early leaves the feeder writing into a closed pipe: SIGPIPE is ignored, as
/// a run ignores it, so that write fails instead of killing the test process.
private func feedingPipe(lines count: Int) -> Int32 {
  OutputWriter.ignoreBrokenPipeSignal()
  var ends: [Int32] = [0, 0]
  precondition(pipe(&ends) == 0, "cannot create a pipe")
  let writer = ends[1]
  DispatchQueue.global().async {
    let output = OutputWriter(fileDescriptor: writer)
    for number in 1...count { output.write("\(number)\n") }
    output.flush()
    close(writer)
  }
  return ends[0]
}

@Suite struct TickerFileLinesTests {
  /// `--from -` on a fast pipe: the reader waits for the consumer instead of dropping lines
  /// beyond its 4096-line buffer (it used to).
  @Test func aFastPipeIsNotTruncated() async {
    let count = 30_000
    var numbers: [Int] = []
    for await line in LineSource.lines(fd: feedingPipe(lines: count), closeWhenDone: true) {
      numbers.append(Int(line.text ?? "") ?? 0)
      if numbers.count % 1000 == 0 { await Task.yield() }  // a consumer slower than the reader
    }
    #expect(numbers.count == count)
    #expect(numbers.last == count)
    #expect(zip(numbers, 1...).allSatisfy { $0 == $1 })
  }

  /// Stopping with thousands of lines still buffered and the reader waiting for room ends both
  /// cleanly (a semaphore counting free slots made libdispatch trap here).
  @Test func stoppingEarlyWithLinesBufferedEndsCleanly() async {
    var taken = 0
    for await _ in LineSource.lines(fd: feedingPipe(lines: 50_000), closeWhenDone: true) {
      taken += 1
      if taken == 10 { break }
    }
    #expect(taken == 10)
  }

  @Test func aRegularFileIsReadCompletely() throws {
    let count = 20_000
    let (fd, path) = temporaryFile((1...count).map { "\($0)\n" }.joined() + "# done")
    defer { unlink(path) }
    #expect(FileLines.isRegularFile(fd))
    let clock = VirtualClock()
    let result = TickerRecorder<(Int, Double)>()
    _ = clock.launch {
      var reader = TimedLineReader(
        lines: FileLines(fd: fd, closeWhenDone: true),
        clock: LineClock(clock: clock, elapsed: { clock.now.offset }), parse: PriceLine.parse,
        reject: { _ in })
      var taken = 0
      var sum = 0.0
      while let price = await reader.next() {
        taken += 1
        sum += price
      }
      result.append((taken, sum))
    }
    clock.drain()
    let (taken, sum) = try #require(result.values.first)
    #expect(taken == count)
    #expect(sum == Double(count * (count + 1) / 2))
  }

  @Test func linesKeepTheirNumbersAndALastLineWithoutNewlineCounts() throws {
    let (fd, path) = temporaryFile("1\n\nx\n4")
    defer { unlink(path) }
    let reader = FileLines(fd: fd, closeWhenDone: true)
    var lines: [RawLine] = []
    while let line = reader.nextLine() { lines.append(line) }
    #expect(lines.map(\.number) == [1, 2, 3, 4])
    #expect(lines.map(\.text) == ["1", "", "x", "4"])
  }

  @Test func aPipeIsNotARegularFile() {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { ends.forEach { close($0) } }
    #expect(!FileLines.isRegularFile(ends[0]))
  }
}
