/// The ticker's text mode: `#3  101.27  ▲ 0.84`, and the closing summary.
///
/// Prices read best with at least two decimals (a price is quoted in cents) but must not lose
/// any: a `--from` feed may have more, so a number is written in its shortest exact form, padded
/// to two decimals.
package enum TickerFormat {
  /// The text after the time and command of a `tick` event.
  package static func tick(_ tick: TickerTally.Tick, style: Style) -> String {
    let head = "#\(tick.n)  \(price(tick.price))"
    guard let change = tick.change else { return head }
    if change > 0 { return "\(head)  " + style.green("▲ \(price(change))") }
    if change < 0 { return "\(head)  " + style.red("▼ \(price(-change))") }
    return "\(head)  = 0.00"
  }

  /// The summary line: `5 ticks  min 91.68  max 108.88  mean 99.936  last 100.30  dropped 0`.
  package static func summary(_ tally: TickerTally, dropped: Int) -> String {
    guard let min = tally.min, let max = tally.max, let mean = tally.mean, let last = tally.last
    else { return "no ticks  dropped \(dropped)" }
    let ticks = tally.count == 1 ? "1 tick" : "\(tally.count) ticks"
    return
      "\(ticks)  min \(price(min))  max \(price(max))  mean \(price(mean))  last \(price(last))"
      + "  dropped \(dropped)"
  }

  /// `101.27`, `101.20`, `-5.00`, `0.001234`: shortest exact form with at least two decimals.
  package static func price(_ value: Double) -> String {
    let text = (value == 0 ? 0 : value).description
    guard !text.contains("e"), !text.contains("n") else { return text }
    guard let point = text.firstIndex(of: ".") else { return text + ".00" }
    let decimals = text.distance(from: point, to: text.endIndex) - 1
    return decimals >= 2 ? text : text + String(repeating: "0", count: 2 - decimals)
  }
}
