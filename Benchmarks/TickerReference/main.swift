// The ticker benchmark's reference: the same JSON lines as
// `loadctl ticker --interval 0 --count N --json --seed S`, written by a plain loop.
//
// No stream, no tasks, no event layer: generate a price, format the line, append it to a buffered
// writer. What `scripts/bench-ticker.sh` compares loadctl with, to show what the structured
// producer/consumer pair costs. It uses the same generator, price mapping and number formatting
// as loadctl (Core's SeededGenerator, JSONValue, OutputWriter), so the bytes differ only in
// `elapsed_ms`.
//
// With --encoder, each tick line is made by JSONEncoder instead (the loop the issue measured at
// ~576k lines/s): the same keys and values, as a second, weaker baseline.
//
// Usage: TickerReference [COUNT] [SEED] [--encoder]   (defaults: 1000000 1)

import LoadctlCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

let arguments = CommandLine.arguments.dropFirst().filter { $0 != "--encoder" }
let useEncoder = CommandLine.arguments.contains("--encoder")
let count = arguments.first.flatMap { Int($0) } ?? 1_000_000
let seed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? 1

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

let encoder = JSONEncoder()

let clock = ContinuousClock()
let start = clock.now
let out = OutputWriter(fileDescriptor: 1)

/// `elapsed_ms` as loadctl writes it: milliseconds with microsecond precision.
func elapsedMilliseconds() -> Double {
  let (seconds, attoseconds) = start.duration(to: clock.now).components
  return Double(seconds * 1_000_000 + attoseconds / 1_000_000_000_000) / 1000
}

/// The ticker's change rounding: 6 decimals.
func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }

var header = "{\"seq\":1,\"elapsed_ms\":"
JSONValue.writeNumber(elapsedMilliseconds(), to: &header)
header += ",\"command\":\"ticker\",\"event\":\"start\",\"schema_version\":1,\"options\":"
header += "{\"source\":\"random\",\"interval_ms\":0,\"min\":90,\"max\":110,\"seed\":\(seed),"
header += "\"count\":\(count),\"buffer\":\"newest:1024\",\"from\":null}}\n"
out.write(header)

var generator = SeededGenerator(seed: seed)
var previous: Double?
var low = Double.infinity
var high = -Double.infinity
var sum = 0.0
for n in 1...count {
  let price = Double(9000 + Int(generator.next() % 2001)) / 100
  defer {
    previous = price
    low = min(low, price)
    high = max(high, price)
    sum += price
  }
  if useEncoder {
    let tick = TickLine(
      seq: n + 1, elapsedMilliseconds: elapsedMilliseconds(), n: n, price: price,
      change: previous.map { rounded(price - $0) })
    guard let data = try? encoder.encode(tick) else { continue }
    out.write(Array(data) + [UInt8(ascii: "\n")])
    continue
  }
  var line = "{\"seq\":\(n + 1),\"elapsed_ms\":"
  JSONValue.writeNumber(elapsedMilliseconds(), to: &line)
  line += ",\"command\":\"ticker\",\"event\":\"tick\",\"n\":\(n),\"price\":"
  JSONValue.writeNumber(price, to: &line)
  line += ",\"change\":"
  if let previous {
    JSONValue.writeNumber(rounded(price - previous), to: &line)
  } else {
    line += "null"
  }
  line += "}\n"
  out.write(line)
}

var footer = "{\"seq\":\(count + 2),\"elapsed_ms\":"
JSONValue.writeNumber(elapsedMilliseconds(), to: &footer)
footer += ",\"command\":\"ticker\",\"event\":\"producer_stopped\",\"reason\":\"consumer_finished\","
footer += "\"produced\":\(count),\"dropped\":0}\n"
footer += "{\"seq\":\(count + 3),\"elapsed_ms\":"
JSONValue.writeNumber(elapsedMilliseconds(), to: &footer)
footer += ",\"command\":\"ticker\",\"event\":\"end\",\"reason\":\"completed\",\"exit_code\":0,"
footer += "\"summary\":{\"count\":\(count),\"min\":"
JSONValue.writeNumber(low, to: &footer)
footer += ",\"max\":"
JSONValue.writeNumber(high, to: &footer)
footer += ",\"mean\":"
JSONValue.writeNumber(rounded(sum / Double(count)), to: &footer)
footer += ",\"last\":"
JSONValue.writeNumber(previous ?? 0, to: &footer)
footer += ",\"dropped\":0}}\n"
out.write(footer)
out.flush()
