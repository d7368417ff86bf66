/// One understood input line: when it applies, and what it says.
///
/// Every flow's `--input` shares this grammar: blank lines and `#` comments are skipped; an
/// optional `+DURATION ` prefix waits that long after the previous line, and `@DURATION ` waits
/// until that offset from the start of the run, so a script can reproduce a typing rhythm exactly.
/// A line that is only `+` has no prefix: its body is `+`.
package struct InputLine: Sendable, Equatable {
  /// When the line applies.
  package enum Timing: Sendable, Equatable {
    /// As soon as it is read.
    case now
    /// This long after the previous line was applied.
    case after(Duration)
    /// At this offset from the start of the run.
    case at(Duration)
  }

  package let number: Int
  package let timing: Timing
  /// The line without its timing prefix, trimmed of surrounding spaces.
  package let body: String

  /// Parses a raw line.
  /// - Returns: `nil` for blank lines and comments.
  /// - Throws: A message for a malformed timing prefix.
  package static func parse(_ text: String, number: Int) throws(InputError) -> InputLine? {
    let trimmed = text.trimmingSpaces
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    // A lone `+` is a body, not a prefix: it is `counter`'s increment action.
    guard let first = trimmed.first, first == "+" || first == "@", trimmed != "+" else {
      return InputLine(number: number, timing: .now, body: trimmed)
    }
    let prefix = trimmed.prefix { $0 != " " && $0 != "\t" }
    let rest = trimmed.dropFirst(prefix.count).description.trimmingSpaces
    guard let duration = parseDuration(String(prefix.dropFirst())) else {
      throw InputError(
        line: number,
        message: "invalid time prefix '\(prefix)' (use +DURATION or @DURATION, e.g. +300ms, @1.5s)")
    }
    guard !rest.isEmpty else {
      throw InputError(line: number, message: "nothing after the time prefix '\(prefix)'")
    }
    return InputLine(
      number: number, timing: first == "+" ? .after(duration) : .at(duration), body: rest)
  }
}

/// Why a flow's parser refused a line's text: only the message; the pipeline that read the line
/// (``TimedLineReader``) numbers it.
package struct LineProblem: Error, Sendable, Equatable {
  package let message: String

  package init(_ message: String) {
    self.message = message
  }
}

/// A rejected input line: its number and why.
package struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
  package let line: Int
  package let message: String

  package init(line: Int, message: String) {
    self.line = line
    self.message = message
  }

  package var description: String { "line \(line): \(message)" }
}
