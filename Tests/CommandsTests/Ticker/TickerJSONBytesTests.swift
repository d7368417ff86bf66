import LoadctlCore
import Testing

@testable import LoadctlCommands

/// The ticker's hot path writes JSON as bytes without `Double.description` or a field array;
/// the text must stay byte for byte what the `String` writers give.
@Suite struct TickerJSONBytesTests {
  private func bytes(_ value: Double) -> String {
    var out: [UInt8] = []
    JSONValue.writeNumber(value, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  private func text(_ value: Double) -> String {
    var out = ""
    JSONValue.writeNumber(value, to: &out)
    return out
  }

  @Test func numbersMatchTheStringWriter() {
    var generator = SeededGenerator(seed: 5)
    var values: [Double] = [
      0, -0.0, 1, -1, 0.5, 0.05, 0.001, 0.0015, 0.000999, 0.0001, 1e-7, 101.27, -5.76, 0.84,
      123_456_789.123456, 999_999_999.999999, 1e9 + 0.5, 1e15 + 0.25, 9_007_199_254_740_992,
      9_007_199_254_740_994, 1e300, -1e-300, .pi, 0.1 + 0.2, 100.0 / 3, .nan, .infinity,
      -.infinity, Double.leastNonzeroMagnitude, .greatestFiniteMagnitude,
    ]
    for _ in 0..<20_000 {
      let raw = generator.next()
      let cents = Int(raw % 2_000_001) - 1_000_000
      values.append(Double(cents) / 100)
      let micros = Int(raw >> 3 % 2_000_000_000_000_001) - 1_000_000_000_000
      values.append(Double(micros) / 1_000_000)
      values.append(Double(micros) / 1000)
      values.append(Double(bitPattern: raw))
      values.append(Double(cents) / 100 - Double(micros % 1000) / 100)
      values.append(TickerTally.rounded(Double(cents) / 100 - Double(micros % 100_000) / 100))
    }
    let mismatches = values.filter { bytes($0) != text($0) }
    #expect(mismatches.map { "\($0): \(bytes($0)) != \(text($0))" } == [])
  }

  @Test func integersMatchStringInit() {
    var generator = SeededGenerator(seed: 6)
    var values = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.min + 1]
    for _ in 0..<10_000 {
      let raw = generator.next()
      values.append(Int(truncatingIfNeeded: raw) >> Int(raw % 64))
    }
    let mismatches = values.filter { value in
      var out: [UInt8] = []
      JSONValue.writeInt(value, to: &out)
      return String(decoding: out, as: UTF8.self) != String(value)
    }
    #expect(mismatches == [])
  }

  /// The tick's fields written as bytes are the field list's JSON.
  @Test func tickFieldsMatchTheirFieldList() {
    var tally = TickerTally()
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<2000 {
      let tick = tally.record(Double(Int(generator.next() % 200_001) - 100_000) / 100)
      var line: [UInt8] = []
      TickerFlow.writeFields(tick, to: &line)
      var expected = ""
      for (key, value) in TickerFlow.fields(tick) {
        expected += ","
        JSONValue.writeString(key, to: &expected)
        expected += ":" + value.serialized
      }
      #expect(String(decoding: line, as: UTF8.self) == expected)
    }
  }
}
