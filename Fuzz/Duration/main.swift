// libFuzzer entry point for `parseDuration` and `formatDuration`.
//
// The first byte picks the mode. Text mode parses the rest as a duration typed by a user: an
// accepted value must be between zero and `maxDuration`, survive the arithmetic the program
// does with durations (milliseconds for JSON, backoff doubling), and format to text that
// parses back to within a thousandth of a nanosecond. Binary mode builds an arbitrary
// `Duration` from the bytes and formats it: `formatDuration` promises any duration.

/// Called by libFuzzer once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDuration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let mode = bytes.first else { return 0 }
  let rest = bytes.dropFirst()
  if mode & 1 == 0 {
    checkParsed(String(decoding: rest, as: UTF8.self))
  } else {
    checkFormatted(arbitraryDuration(from: rest))
  }
  return 0
}

private func checkParsed(_ text: String) {
  guard let duration = parseDuration(text) else { return }
  check(duration >= .zero && duration <= maxDuration, "'\(text)' parsed out of range")
  // What EventOutput.milliseconds and ProfileFlow's backoff compute; both must not trap.
  let (seconds, attoseconds) = duration.components
  _ = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
  _ = (duration * (1 << 20)).components
  let formatted = formatDuration(duration)
  guard let back = parseDuration(formatted) else {
    fatalError("'\(text)' formatted as '\(formatted)', which does not parse")
  }
  let error = back > duration ? back - duration : duration - back
  check(error < .nanoseconds(1) / 1000, "'\(text)' → '\(formatted)' → \(back), off by \(error)")
  check(back <= duration, "'\(text)' formatted up to '\(formatted)'")
}

private func checkFormatted(_ duration: Duration) {
  let text = formatDuration(duration)
  let magnitude = text.hasPrefix("-") ? String(text.dropFirst()) : text
  check((duration < .zero) == text.hasPrefix("-"), "sign lost: \(duration) → '\(text)'")
  check(!magnitude.isEmpty && magnitude.first?.isNumber == true, "bad text '\(text)'")
}

/// A duration from up to 16 bytes: seconds from the first 8, attoseconds from the next 8.
private func arbitraryDuration(from bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Duration {
  var seconds: Int64 = 0
  var attoseconds: Int64 = 0
  for (offset, byte) in bytes.prefix(16).enumerated() {
    if offset < 8 {
      seconds = seconds << 8 | Int64(byte)
    } else {
      attoseconds = attoseconds << 8 | Int64(byte)
    }
  }
  return Duration(
    secondsComponent: seconds, attosecondsComponent: attoseconds % 1_000_000_000_000_000_000)
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
