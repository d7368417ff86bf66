// libFuzzer entry point for reading `--input` lines: `LineSplitter` then `InputLine.parse`.
//
// The first byte configures the run: its low 7 bits plus one give the chunk size the bytes are
// fed in (a pipe delivers them in arbitrary pieces), and its high bit makes each 0x01 byte
// stand for 16 KiB of `x` (the first five of them: enough to pass 64 KiB), so over-long lines
// are reachable from small inputs without making every run slow. The lines must not depend on
// the chunking, must be numbered 1, 2, 3…, and every line that has text must parse to a
// trimmed, non-empty body or be rejected with its own line number.

/// Called by libFuzzer once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInputLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let raw = UnsafeBufferPointer(start: data, count: size)
  guard let config = raw.first else { return 0 }
  let chunkSize = Int(config & 0x7F) + 1
  var bytes: [UInt8] = []
  var expansions = config & 0x80 != 0 ? 5 : 0
  for byte in raw.dropFirst() {
    if expansions > 0, byte == 1 {
      expansions -= 1
      bytes += repeatElement(UInt8(ascii: "x"), count: 16 * 1024)
    } else {
      bytes.append(byte)
    }
  }

  var whole = LineSplitter()
  let expected = whole.feed(bytes[...]) + whole.finish()
  var chunked = LineSplitter()
  var lines: [RawLine] = []
  var start = 0
  while start < bytes.count {
    let end = min(start + chunkSize, bytes.count)
    lines += chunked.feed(bytes[start..<end])
    start = end
  }
  lines += chunked.finish()
  check(lines == expected, "chunks of \(chunkSize) split differently")

  let newlines = bytes.count { $0 == UInt8(ascii: "\n") }
  let unterminated = bytes.last.map { $0 != UInt8(ascii: "\n") } ?? false
  check(lines.count == newlines + (unterminated ? 1 : 0), "\(lines.count) lines")
  for (index, line) in lines.enumerated() {
    check(line.number == index + 1, "line \(index + 1) numbered \(line.number)")
    check((line.text == nil) != (line.problem == nil), "line \(line.number): text and problem")
    guard let text = line.text else { continue }
    check(text.utf8.count <= LineSource.maxLineLength, "line \(line.number) too long")
    check(!text.utf8.contains(UInt8(ascii: "\n")), "newline inside line \(line.number)")
    checkParsed(text, number: line.number)
  }
  return 0
}

private func checkParsed(_ text: String, number: Int) {
  let parsed: InputLine?
  do throws(InputError) {
    parsed = try InputLine.parse(text, number: number)
  } catch {
    check(error.line == number, "error for line \(number) names line \(error.line)")
    check(!error.message.isEmpty, "empty message for line \(number)")
    return
  }
  guard let parsed else {
    let trimmed = text.trimmingSpaces
    check(trimmed.isEmpty || trimmed.hasPrefix("#"), "line \(number) skipped: '\(text)'")
    return
  }
  check(parsed.number == number, "parsed line \(number) numbered \(parsed.number)")
  check(!parsed.body.isEmpty, "empty body for line \(number)")
  check(parsed.body == parsed.body.trimmingSpaces, "untrimmed body '\(parsed.body)'")
  switch parsed.timing {
  case .now: check(!parsed.body.hasPrefix("#"), "comment '\(text)' kept")
  case .after(let duration), .at(let duration):
    check(duration >= .zero && duration <= maxDuration, "time prefix out of range in '\(text)'")
  }
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
