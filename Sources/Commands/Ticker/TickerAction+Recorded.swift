import LoadctlCore

/// A ticker batch in a recording, every price kept: as whole cents when every price of the
/// batch is one (`{"action":"prices","cents":[10125,10000,10],"dropped":3}`, read back as
/// `cents / 100`), else as numbers (`{"action":"prices","prices":[101.25,100,0.1001],…}`).
///
/// A price is written in cents only when `Double(cents) / 100` is that very `Double`, so either
/// form reads back as the same `Double`; cents are integers, cheaper to write and read than
/// shortest round-trip decimals, and every built-in feed's prices and most real ones are cents.
/// In numbers, integral prices are written as integers, read back exactly up to 2^53. `-0.0`
/// reads back as `0.0` (equal by `==`). NaN and the infinities are written as `null` and refused
/// on reading; feeds never produce them.
extension TickerAction: RecordableAction {
  package var recorded: JSONValue {
    switch self {
    case .prices(let prices, let dropped):
      let listed: (String, JSONValue) =
        if let cents = Self.cents(prices) {
          ("cents", .array(cents.map { .int($0) }))
        } else {
          ("prices", .array(prices.map { .double($0) }))
        }
      return .object([("action", .string(name)), listed, ("dropped", .int(dropped))])
    }
  }

  /// ``recorded``'s text, each price written straight from its `Double`: a batch holds up to
  /// 1024 of them.
  package func writeRecorded(to buffer: inout [UInt8]) {
    switch self {
    case .prices(let prices, let dropped):
      let start = buffer.count
      buffer.append(literal: #"{"action":"prices","cents":["#)
      var inCents = true
      for (index, price) in prices.enumerated() {
        guard let cents = Self.cents(price) else {
          inCents = false
          break
        }
        if index > 0 { buffer.append(UInt8(ascii: ",")) }
        JSONValue.writeInt(cents, to: &buffer)
      }
      if !inCents {
        buffer.removeSubrange(start...)
        buffer.append(literal: #"{"action":"prices","prices":["#)
        for (index, price) in prices.enumerated() {
          if index > 0 { buffer.append(UInt8(ascii: ",")) }
          JSONValue.writeNumber(price, to: &buffer)
        }
      }
      buffer.append(literal: #"],"dropped":"#)
      JSONValue.writeInt(dropped, to: &buffer)
      buffer.append(UInt8(ascii: "}"))
    }
  }

  /// `price` in whole cents, when `Double(cents) / 100` gives `price` back (below 2^53 cents).
  private static func cents(_ price: Double) -> Int? {
    guard let cents = Int(exactly: (price * 100).rounded()), cents.magnitude <= 1 << 53,
      Double(cents) / 100 == price
    else { return nil }
    return cents
  }

  /// Every price in cents, or `nil` when one is not a whole number of cents.
  private static func cents(_ prices: [Double]) -> [Int]? {
    var all: [Int] = []
    all.reserveCapacity(prices.count)
    for price in prices {
      guard let cents = cents(price) else { return nil }
      all.append(cents)
    }
    return all
  }

  package static func fromRecorded(_ value: JSONValue) -> Result<TickerAction, LineProblem> {
    Result { () throws(LineProblem) -> TickerAction in
      let fields = try RecordedFields(value, of: "ticker")
      guard fields.action == "prices" else { throw fields.unknownAction(expected: ["prices"]) }
      let dropped = try fields.count("dropped")
      switch (value["cents"], value["prices"]) {
      case (nil, _): return .prices(try fields.doubles("prices"), dropped: dropped)
      case (_?, nil):
        return .prices(
          try fields.integers("cents", in: -(1 << 53)...(1 << 53)).map { Double($0) / 100 },
          dropped: dropped)
      case (_?, _?): throw fields.problem("has both \"cents\" and \"prices\"")
      }
    }
  }
}
