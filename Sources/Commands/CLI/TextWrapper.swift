/// Greedy word wrapping for help text.
///
/// Help must stay readable in any terminal width, and labels and descriptions need a hanging
/// indent, which `print` alone cannot do.
enum TextWrapper {
  /// The column descriptions start in, as in swift-argument-parser's help.
  static let descriptionColumn = 26
  /// Below this many columns for descriptions, they move under their labels instead.
  static let minimumDescriptionWidth = 30
  /// The indent of descriptions under their labels in narrow terminals.
  static let narrowIndent = 6

  /// Wraps `text` to `width` columns, one output line per wrapped line.
  ///
  /// Line breaks in `text` are kept; a word longer than the space gets a line of its own.
  ///
  /// - Parameters:
  ///   - text: The words to wrap.
  ///   - width: The total width, prefix and indent included.
  ///   - prefix: What the first line starts with, such as `OVERVIEW: `.
  ///   - indent: The number of spaces every later line starts with.
  /// - Returns: The lines, without newlines or trailing spaces.
  static func wrap(_ text: String, width: Int, prefix: String = "", indent: Int = 0) -> [String] {
    var lines: [String] = []
    var line = prefix
    var lineHasWords = false
    let margin = String(repeating: " ", count: indent)
    for (number, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      if number > 0 {
        lines.append(line)
        line = margin
        lineHasWords = false
      }
      for word in paragraph.split(separator: " ") {
        if lineHasWords, line.count + 1 + word.count > width {
          lines.append(line)
          line = margin
          lineHasWords = false
        }
        line += (lineHasWords ? " " : "") + word
        lineHasWords = true
      }
    }
    lines.append(line)
    return lines.map { trimmingTrailingSpaces($0) }
  }

  /// A two-column row: `label` indented by two, `text` from ``descriptionColumn`` on,
  /// wrapped with a hanging indent.
  ///
  /// A label too wide for its column gets a line of its own, and so does every label when
  /// `width` leaves less than ``minimumDescriptionWidth`` for descriptions; those then start
  /// at ``narrowIndent``.
  static func row(label: String, text: String, width: Int) -> [String] {
    let labelLine = "  " + label
    let isNarrow = width - descriptionColumn < minimumDescriptionWidth
    let column = isNarrow ? narrowIndent : descriptionColumn
    guard !isNarrow, labelLine.count + 2 <= column else {
      let margin = String(repeating: " ", count: column)
      return [labelLine] + wrap(text, width: width, prefix: margin, indent: column)
    }
    let padded = labelLine + String(repeating: " ", count: column - labelLine.count)
    return wrap(text, width: width, prefix: padded, indent: column)
  }

  private static func trimmingTrailingSpaces(_ line: String) -> String {
    var line = line
    while line.last == " " { line.removeLast() }
    return line
  }
}
