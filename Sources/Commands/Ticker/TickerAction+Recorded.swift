import LoadctlCore

/// A ticker batch in a recording, every price kept:
/// `{"action":"prices","prices":[101.25,100,0.1],"dropped":3}`.
///
/// Finite prices read back as the same `Double` (the shortest round-trip form; integral ones as
/// integers, read back exactly up to 2^53), except that `-0.0` reads back as `0.0` (equal by `==`).
/// NaN and the infinities are written as `null` and refused on reading; feeds never produce them.
extension TickerAction: RecordableAction {
  package var recorded: JSONValue {
    switch self {
    case .prices(let prices, let dropped):
      .object([
        ("action", .string(name)), ("prices", .array(prices.map { .double($0) })),
        ("dropped", .int(dropped)),
      ])
    }
  }

  /// ``recorded``'s text, each price written straight from its `Double`: a batch holds up to
  /// 1024 of them.
  package func writeRecorded(to buffer: inout [UInt8]) {
    switch self {
    case .prices(let prices, let dropped):
      buffer.append(literal: #"{"action":"prices","prices":["#)
      for (index, price) in prices.enumerated() {
        if index > 0 { buffer.append(UInt8(ascii: ",")) }
        JSONValue.writeNumber(price, to: &buffer)
      }
      buffer.append(literal: #"],"dropped":"#)
      JSONValue.writeInt(dropped, to: &buffer)
      buffer.append(UInt8(ascii: "}"))
    }
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<TickerAction, LineProblem> {
    Result { () throws(LineProblem) -> TickerAction in
      let fields = try RecordedFields(value, of: "ticker")
      guard fields.action == "prices" else { throw fields.unknownAction(expected: ["prices"]) }
      return .prices(try fields.doubles("prices"), dropped: try fields.count("dropped"))
    }
  }
}
