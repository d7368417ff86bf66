/// Checks that a whole `--json` run is well-formed JSON Lines with loadctl's envelope.
///
/// The output contract: every line is a JSON object with `seq` (1, 2, 3, … without gaps),
/// `elapsed_ms` (a number that never decreases), `command` and `event` (strings); the first
/// event is `start` and the last is `end`. Problems are returned as readable strings, so a
/// test can `#expect(problems == [])` and see all of them at once.
enum JSONLines {
  /// Parses every line as a JSON object.
  ///
  /// - Throws: `HarnessError` naming the first line that is not a JSON object.
  static func parse(_ lines: [String]) throws -> [JSONEvent] {
    try lines.enumerated().map { index, line in
      try JSONEvent(parsing: line, lineNumber: index + 1)
    }
  }

  /// Everything wrong with the envelope of `events`; empty when all is well.
  ///
  /// - Parameter command: When given, the `command` every event must name.
  static func envelopeProblems(_ events: [JSONEvent], command: String? = nil) -> [String] {
    guard let first = events.first, let last = events.last else { return ["no events"] }
    var problems: [String] = []
    var previousElapsed = -Double.infinity
    for (index, event) in events.enumerated() {
      let at = "line \(event.lineNumber)"
      if let seq = event.seq {
        if seq != index + 1 { problems.append("\(at): seq is \(seq), expected \(index + 1)") }
      } else {
        problems.append("\(at): missing or non-integer seq")
      }
      if let elapsed = event.elapsedMilliseconds {
        if elapsed < previousElapsed {
          problems.append("\(at): elapsed_ms \(elapsed) is less than \(previousElapsed) before it")
        }
        previousElapsed = max(previousElapsed, elapsed)
      } else {
        problems.append("\(at): missing or non-numeric elapsed_ms")
      }
      switch (event.command, command) {
      case (nil, _): problems.append("\(at): missing or non-string command")
      case (let actual?, let expected?) where actual != expected:
        problems.append("\(at): command is \(actual), expected \(expected)")
      default: break
      }
      if event.event == nil { problems.append("\(at): missing or non-string event") }
    }
    if first.event != "start" {
      problems.append("first event is \(first.event ?? "missing"), expected start")
    }
    if last.event != "end" {
      problems.append("last event is \(last.event ?? "missing"), expected end")
    }
    return problems
  }

  /// Parses `lines` and checks their envelope in one step.
  static func envelopeProblems(of lines: [String], command: String? = nil) -> [String] {
    do {
      return envelopeProblems(try parse(lines), command: command)
    } catch {
      return ["\(error)"]
    }
  }
}
