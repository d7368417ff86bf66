/// Draws effect lifetimes as a compact terminal picture for `--timeline`.
///
/// One row per effect track, time across, scaled to the width: `█` while running, then `✓`
/// finished, `╳` cancelled, `✗` failed (`…` unfinished). It shows at a glance what debounce,
/// latest-wins and cancel-in-flight actually did.
enum TimelineRenderer {
  static func render(
    slices: [TraceRecorder.Slice], tracks: [String], end: Duration, width: Int
  ) -> String {
    let effects = slices.filter { !$0.isSleep }
    guard !effects.isEmpty else { return "timeline: no effects ran\n" }
    let tracks = tracks.filter { track in effects.contains { $0.track == track } }
    let labels = tracks.map { $0.hasPrefix("effect ") ? String($0.dropFirst(7)) : $0 }
    // Labels take at most a third of a narrow width, so rows keep to it down to 20 columns.
    let labelWidth = min(24, (labels.map(\.count).max() ?? 0) + 1, max(4, width / 3))
    let columns = max(4, width - labelWidth - 2)
    let total = max(EventOutput.milliseconds(end), 0.001)
    func column(_ time: Duration) -> Int {
      min(columns - 1, Int(EventOutput.milliseconds(time) / total * Double(columns - 1)))
    }
    var out =
      pad("", labelWidth) + "  0s" + pad("", max(1, columns - 4 - formatted(end).count))
      + formatted(end) + "\n"
    for (track, label) in zip(tracks, labels) {
      var cells = [Character](repeating: " ", count: columns)
      let mine = effects.filter { $0.track == track }
      for slice in mine {
        for index in column(slice.start)..<max(column(slice.start), column(slice.end)) {
          cells[index] = "█"
        }
      }
      // Ends are drawn last, so a restart (one effect ending where the next begins) stays visible.
      for slice in mine { cells[max(column(slice.start), column(slice.end))] = mark(slice.outcome) }
      let row = pad(String(label.prefix(labelWidth)), labelWidth) + "  " + String(cells)
      out += String(row.reversed().drop { $0 == " " }.reversed()) + "\n"
    }
    return out + legend(indent: labelWidth + 2, width: width)
  }

  /// What the marks mean, under the rows, on as many lines as `width` needs.
  static func legend(indent: Int, width: Int) -> String {
    let items = ["█ running", "✓ finished", "╳ cancelled", "✗ failed"]
    // Under the rows, unless the longest item would not fit there.
    let indent = max(0, min(indent, width - (items.map(\.count).max() ?? 0)))
    var lines: [String] = []
    for item in items {
      if let last = lines.last, indent + last.count + 2 + item.count <= width {
        lines[lines.count - 1] = last + "  " + item
      } else {
        lines.append(item)
      }
    }
    return lines.map { pad("", indent) + $0 + "\n" }.joined()
  }

  static func mark(_ outcome: String) -> Character {
    switch outcome {
    case "finished": "✓"
    case "cancelled": "╳"
    case "failed": "✗"
    default: "…"
    }
  }

  static func formatted(_ duration: Duration) -> String {
    EventOutput.formatElapsed(duration).trimmingSpaces
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }
}
