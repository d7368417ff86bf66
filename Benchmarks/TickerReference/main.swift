// The ticker benchmarks' reference: the same JSON lines as loadctl, written by a plain loop.
//
//   TickerReference [COUNT] [SEED] [--encoder]   like `loadctl ticker --interval 0 --count COUNT
//                                                --json --seed SEED` (defaults: 1000000 1)
//   TickerReference --from FILE                  like `loadctl ticker --from FILE --json`, for a
//                                                file of one price per line
//
// No stream, no tasks, no event layer: make or read a price, format the line, append it to a
// buffer written out every 64 KiB. What scripts/bench.sh compares loadctl with, to show what the
// structured flow costs. The generator (SplitMix64), the price mapping, the rounding and the
// number formatting are copied from loadctl, so the bytes differ only in `elapsed_ms`.
//
// With --encoder, each tick line is made by JSONEncoder instead: the same keys and values, as a
// second, weaker baseline.

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: Copied from loadctl

/// SplitMix64, as loadctl's `SeededGenerator`.
struct SplitMix64 {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

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

/// The ticker's rounding to 6 decimals (`TickerTally.rounded`).
func rounded(_ value: Double) -> Double {
  let scaled = value * 1e6
  guard scaled.magnitude < 1e15 else { return value }
  return scaled.rounded() / 1e6
}

// MARK: Output

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

let clock = ContinuousClock()
let start = clock.now
var out = Output()
var seq = 0

/// `elapsed_ms` as loadctl writes it: milliseconds with microsecond precision.
@MainActor func elapsedMilliseconds() -> Double {
  let (seconds, attoseconds) = start.duration(to: clock.now).components
  return Double(seconds * 1_000_000 + attoseconds / 1_000_000_000_000) / 1000
}

/// `{"seq":N,"elapsed_ms":T,"command":"ticker","event":"EVENT"`: every line's head.
@MainActor func head(_ event: String) -> String {
  seq += 1
  var line = "{\"seq\":\(seq),\"elapsed_ms\":"
  writeNumber(elapsedMilliseconds(), to: &line)
  line += ",\"command\":\"ticker\",\"event\":\"\(event)\""
  return line
}

/// What the ticks were: loadctl's `TickerTally`.
var count = 0
var previous: Double?
var low = Double.infinity
var high = -Double.infinity
var sum = 0.0

@MainActor func tick(_ price: Double) {
  count += 1
  var line = head("tick")
  line += ",\"n\":\(count),\"price\":"
  writeNumber(price, to: &line)
  line += ",\"change\":"
  if let previous {
    writeNumber(rounded(price - previous), to: &line)
  } else {
    line += "null"
  }
  line += "}\n"
  out.write(line)
  previous = price
  low = min(low, price)
  high = max(high, price)
  sum += price
}

@MainActor func finish(reason: String) {
  var footer = head("producer_stopped")
  footer += ",\"reason\":\"\(reason)\",\"produced\":\(count),\"dropped\":0}\n"
  footer += head("end")
  footer += ",\"reason\":\"completed\",\"exit_code\":0,\"summary\":{\"count\":\(count),\"min\":"
  writeNumber(low, to: &footer)
  footer += ",\"max\":"
  writeNumber(high, to: &footer)
  footer += ",\"mean\":"
  writeNumber(rounded(sum / Double(count)), to: &footer)
  footer += ",\"last\":"
  writeNumber(previous ?? 0, to: &footer)
  footer += ",\"dropped\":0}}\n"
  out.write(footer)
  out.flush()
}

// MARK: --from FILE

/// Reads `path` in 64 KiB chunks and shows each line that is a number.
@MainActor func fromFile(_ path: String) {
  out.write(
    head("start")
      + ",\"schema_version\":1,\"clock\":\"continuous\",\"options\":{\"source\":\"lines\","
      + "\"interval_ms\":null,\"min\":null,\"max\":null,\"seed\":null,\"count\":null,"
      + "\"buffer\":\"newest:1024\",\"from\":\"\(path)\"}}\n")
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { exit(66) }
  var chunk = [UInt8](repeating: 0, count: 64 * 1024)
  var pending: [UInt8] = []
  func line(_ bytes: ArraySlice<UInt8>) {
    guard let first = bytes.first, first != UInt8(ascii: "#"),
      let price = Double(String(decoding: bytes, as: UTF8.self))
    else { return }
    tick(price)
  }
  while true {
    let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    if got < 0, errno == EINTR { continue }
    if got <= 0 { break }
    var lineStart = 0
    for index in 0..<got where chunk[index] == UInt8(ascii: "\n") {
      if pending.isEmpty {
        line(chunk[lineStart..<index])
      } else {
        pending += chunk[lineStart..<index]
        line(pending[...])
        pending.removeAll(keepingCapacity: true)
      }
      lineStart = index + 1
    }
    pending += chunk[lineStart..<got]
  }
  if !pending.isEmpty { line(pending[...]) }
  close(fd)
  finish(reason: "source_finished")
}

// MARK: random prices

/// A tick line for JSONEncoder, keys in loadctl's order.
struct TickLine: Encodable {
  enum CodingKeys: String, CodingKey {
    case seq
    case elapsedMilliseconds = "elapsed_ms"
    case command, event, n, price, change
  }
  var seq: Int
  var elapsedMilliseconds: Double
  var command = "ticker"
  var event = "tick"
  var n: Int
  var price: Double
  var change: Double?

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(seq, forKey: .seq)
    try container.encode(elapsedMilliseconds, forKey: .elapsedMilliseconds)
    try container.encode(command, forKey: .command)
    try container.encode(event, forKey: .event)
    try container.encode(n, forKey: .n)
    try container.encode(price, forKey: .price)
    try container.encode(change, forKey: .change)
  }
}

@MainActor func random(count total: Int, seed: UInt64, encoder: JSONEncoder?) {
  out.write(
    head("start")
      + ",\"schema_version\":1,\"clock\":\"continuous\",\"options\":{\"source\":\"random\","
      + "\"interval_ms\":0,\"min\":90,\"max\":110,\"seed\":\(seed),\"count\":\(total),"
      + "\"buffer\":\"newest:1024\",\"from\":null}}\n")
  var generator = SplitMix64(state: seed)
  for _ in 0..<total {
    let price = Double(9000 + Int(generator.next() % 2001)) / 100
    guard let encoder else {
      tick(price)
      continue
    }
    seq += 1
    count += 1
    let line = TickLine(
      seq: seq, elapsedMilliseconds: elapsedMilliseconds(), n: count, price: price,
      change: previous.map { rounded(price - $0) })
    if let data = try? encoder.encode(line) {
      out.bytes += data
      out.write("\n")
    }
    previous = price
    low = min(low, price)
    high = max(high, price)
    sum += price
  }
  finish(reason: "consumer_finished")
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--from", arguments.count == 2 {
  fromFile(arguments[1])
} else {
  let numbers = arguments.filter { $0 != "--encoder" }
  random(
    count: numbers.first.flatMap { Int($0) } ?? 1_000_000,
    seed: numbers.dropFirst().first.flatMap { UInt64($0) } ?? 1,
    encoder: arguments.contains("--encoder") ? JSONEncoder() : nil)
}
