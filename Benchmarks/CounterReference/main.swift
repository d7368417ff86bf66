// The counter benchmark's reference: the same JSON lines as
// `loadctl counter --input FILE --json` for a file of `+` lines, written by a plain loop.
//
// No store, no tasks, no event layer: read the file in 64 KiB chunks, and for each `+` line
// count and write the `transition` line; a buffer is written out every 64 KiB. What
// scripts/bench.sh compares loadctl with, to show what the store and its rendering cost. The
// number formatting is copied from loadctl, so the bytes differ only in `elapsed_ms`.
//
// Usage: CounterReference FILE

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A number as loadctl's `JSONValue.writeNumber` writes it.
func writeNumber(_ value: Double, to out: inout String) {
  guard value.isFinite else {
    out += "null"
    return
  }
  if value == value.rounded(.towardZero), abs(value) <= 9_007_199_254_740_992 {
    out += String(Int(value))
  } else {
    out += value.description
  }
}

/// Bytes for stdout, written out every 64 KiB.
struct Output {
  var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(80 * 1024) }

  mutating func write(_ text: String) {
    bytes.append(contentsOf: text.utf8)
    if bytes.count >= 64 * 1024 { flush() }
  }

  mutating func flush() {
    bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      var offset = 0
      while offset < raw.count {
        let written = Glibc.write(1, base + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          exit(1)
        }
        offset += written
      }
    }
    bytes.removeAll(keepingCapacity: true)
  }
}

guard CommandLine.arguments.count == 2 else {
  fputs("usage: CounterReference FILE\n", stderr)
  exit(64)
}
let path = CommandLine.arguments[1]
let clock = ContinuousClock()
let start = clock.now
var out = Output()
var seq = 0
var count = 0

/// `{"seq":N,"elapsed_ms":T,"command":"counter","event":"EVENT"`: every line's head.
@MainActor func head(_ event: String) -> String {
  seq += 1
  let (seconds, attoseconds) = start.duration(to: clock.now).components
  var line = "{\"seq\":\(seq),\"elapsed_ms\":"
  writeNumber(Double(seconds * 1_000_000 + attoseconds / 1_000_000_000_000) / 1000, to: &line)
  line += ",\"command\":\"counter\",\"event\":\"\(event)\""
  return line
}

/// The counter's state as loadctl writes it.
func state(_ count: Int) -> String {
  "{\"count\":\(count),\"is_loading\":false,\"in_flight\":0}"
}

/// One input line: `+` increments.
@MainActor func apply(_ line: ArraySlice<UInt8>) {
  guard line.count == 1, line.first == UInt8(ascii: "+") else { return }
  var text = head("transition")
  text += ",\"action\":\"increment\",\"from\":"
  text += state(count)
  count += 1
  text += ",\"to\":"
  text += state(count)
  text += "}\n"
  out.write(text)
}

out.write(
  head("start")
    + ",\"schema_version\":1,\"clock\":\"continuous\",\"options\":{\"delay_ms\":1000,"
    + "\"policy\":\"drop\",\"actions\":[],\"input\":\"\(path)\"}}\n")
let fd = open(path, O_RDONLY)
guard fd >= 0 else { exit(66) }
var chunk = [UInt8](repeating: 0, count: 64 * 1024)
var pending: [UInt8] = []
while true {
  let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
  if got < 0, errno == EINTR { continue }
  if got <= 0 { break }
  var lineStart = 0
  for index in 0..<got where chunk[index] == UInt8(ascii: "\n") {
    if pending.isEmpty {
      apply(chunk[lineStart..<index])
    } else {
      pending += chunk[lineStart..<index]
      apply(pending[...])
      pending.removeAll(keepingCapacity: true)
    }
    lineStart = index + 1
  }
  pending += chunk[lineStart..<got]
}
if !pending.isEmpty { apply(pending[...]) }
close(fd)
out.write(
  head("end") + ",\"reason\":\"completed\",\"exit_code\":0,\"state\":" + state(count) + "}\n")
out.flush()
