/// The timer's face in text output: elapsed time as `mm:ss` and a one-line, 60-step dial.
///
/// The TCA `Timers` example draws a clock hand turned `ticks × 360 / 60` degrees. A terminal line cannot turn a
/// hand, so the dial is a bar of 15 cells, each filled in quarters (`▎▌▊█`): 60 steps, one per
/// tick, back to empty after a full turn, like the hand returning to twelve.
package struct TimerDial: Sendable {
  /// The length of one tick.
  package let interval: Duration

  package init(interval: Duration) { self.interval = interval }

  static let cells = 15
  /// The longest elapsed time shown, well inside what a `Duration` holds.
  private static let longest = Duration.seconds(Int64.max / 2)
  private static let partial = ["", "▎", "▌", "▊"]

  /// `▶ 00:03 ▕▊              ▏` for a running timer, `■ …` for a stopped one.
  package func render(_ state: TimerState) -> String {
    "\(state.isTimerActive ? "▶" : "■") \(elapsed(ticks: state.ticks)) \(bar(ticks: state.ticks))"
  }

  /// `ticks × interval` as `mm:ss`, with as many decimals as the interval needs (at most 3):
  /// `00:03` for 1 s ticks, `00:00.20` for 10 ms ticks. Past an hour the minutes keep counting.
  /// Past what a `Duration` holds (a count only a replayed recording reaches), `--:--`.
  package func elapsed(ticks: Int) -> String {
    guard ticks >= 0, Double(ticks) < Self.longest / interval else { return "--:--" }
    let total = interval * ticks
    let (seconds, attoseconds) = total.components
    let millis = Int(attoseconds / 1_000_000_000_000_000)
    var text = "\(pad(Int(seconds) / 60)):\(pad(Int(seconds) % 60))"
    let digits = decimals
    if digits > 0 {
      let fraction = String(millis)
      let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
      text += "." + padded.prefix(digits)
    }
    return text
  }

  /// The 60-step bar for `ticks`, between `▕` and `▏`.
  package func bar(ticks: Int) -> String {
    let step = ((ticks % 60) + 60) % 60
    let full = step / 4
    let part = Self.partial[step % 4]
    let empty = Self.cells - full - (part.isEmpty ? 0 : 1)
    return "▕" + String(repeating: "█", count: full) + part
      + String(repeating: " ", count: empty) + "▏"
  }

  /// Decimals of a second the interval needs: 0 for whole seconds, up to 3 for milliseconds.
  private var decimals: Int {
    let millis = interval.components.attoseconds / 1_000_000_000_000_000
    if millis == 0 { return 0 }
    if millis % 100 == 0 { return 1 }
    if millis % 10 == 0 { return 2 }
    return 3
  }

  private func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
