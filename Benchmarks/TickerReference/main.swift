// The ticker benchmark's reference: the same JSON lines as
// `loadctl ticker --interval 0 --count N --json --seed S`, written by a plain loop.
//
// No stream, no tasks, no event layer: generate a price, format the line, append it to a buffered
// writer. What `scripts/bench-ticker.sh` compares loadctl with, to show what the structured
// producer/consumer pair costs. It uses the same generator, price mapping and number formatting
// as loadctl (Core's SeededGenerator, JSONValue, OutputWriter), so the bytes differ only in
// `elapsed_ms`.
//
// Usage: TickerReference [COUNT] [SEED]   (defaults: 1000000 1)

import Core

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap { Int($0) } ?? 1_000_000
let seed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? 1

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
  previous = price
  low = min(low, price)
  high = max(high, price)
  sum += price
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
