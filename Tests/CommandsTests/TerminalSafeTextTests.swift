import LoadctlCore
import Testing

@testable import LoadctlCommands

/// Text output never hands a terminal a control character that came from outside: what a
/// command, a file, curl or stdin gave is escaped in every summary that text mode prints, while
/// JSON snapshots keep it as it was (JSON string encoding escapes it there).
@Suite struct TerminalSafeTextTests {
  /// OSC (window title), ESC [2J (clear screen), BEL, CR, NUL, DEL and CSI as a C1 character.
  static let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\rSPOOF\0\u{7F}\u{9B}1m"
  static let escaped = #"\u{1B}]0;pwned\u{7}\u{1B}[2J\rSPOOF\0\u{7F}\u{9B}1m"#

  @Test func searchResultsAndFailuresAreEscaped() {
    var state = SearchState()
    state.phase = .results(query: "q", hits: SearchHits(items: [Self.hostile, "b"], total: 2))
    #expect(state.summaryWithItems == #"results "q" (2 of 2): "# + Self.escaped + ", b")
    #expect(state.snapshot["items"] == .array([.string(Self.hostile), "b"]))
    state.phase = .failed(query: "q", message: "command failed (exit status 3): " + Self.hostile)
    #expect(state.summary == #"failed "q": command failed (exit status 3): "# + Self.escaped)
    #expect(state.snapshot["message"] == .string("command failed (exit status 3): " + Self.hostile))
  }

  @Test func aQueryIsAJSONStringWithDELAndC1EscapedToo() {
    #expect(quoted("say \"hi\"") == #""say \"hi\"""#)
    #expect(quoted(Self.hostile) == #""\u001b]0;pwned\u0007\u001b[2J\rSPOOF\u0000\u007f\u009b1m""#)
    #expect(SearchAction.queryChanged(Self.hostile).summary.unicodeScalars.allSatisfy(isVisible))
  }

  @Test func aProfileAndAFailureAreEscaped() {
    var state = ProfileState()
    let fields = JSONValue.object([
      ("name", .string(Self.hostile)), ("\u{1B}[1mkey", "a\r\nb"), ("list", .array(["\u{9B}"])),
    ])
    state.load = .loaded(Profile(name: Self.hostile, fields: fields))
    #expect(
      state.summary
        == "loaded(name: \(Self.escaped), \\u{1B}[1mkey: a\\r\\nb, list: [\"\\u009b\"])")
    state.load = .failed("curl failed (exit status 22): " + Self.hostile)
    #expect(state.summary == "failed(curl failed (exit status 22): \(Self.escaped))")
    #expect(state.snapshot["message"] == .string("curl failed (exit status 22): " + Self.hostile))
  }

  /// Bidirectional formatting characters and the line and paragraph separators: each makes a
  /// line show text other than it holds (an RLO reverses the rest of it).
  static let reordering = "a\u{202E}b\u{2066}c\u{2069}d\u{200E}\u{200F}\u{061C}e\u{2028}f\u{2029}g"

  @Test func bidiControlsAreEscapedInTextAndJSON() {
    #expect(
      Self.reordering.escapingControlCharacters
        == #"a\u{202E}b\u{2066}c\u{2069}d\u{200E}\u{200F}\u{61C}e\u{2028}f\u{2029}g"#)
    let json = #""a\u202eb\u2066c\u2069d\u200e\u200f\u061ce\u2028f\u2029g""#
    #expect(JSONValue.string(Self.reordering).serialized == json)
    #expect(quoted(Self.reordering) == json)
    var state = SearchState()
    state.phase = .results(query: "q", hits: SearchHits(items: [Self.reordering], total: 1))
    #expect(state.summaryWithItems.unicodeScalars.allSatisfy(isVisible))
    // Their neighbours, and characters built of the same lead bytes, stay as they are.
    for kept in [
      "\u{2010}", "\u{2027}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{061B}", "\u{00A0}", "é", "👨‍👩‍👧",
    ] {
      #expect(
        JSONValue.string(kept).serialized == "\"\(kept)\"", "\(kept.unicodeScalars.map(\.value))")
      #expect(kept.escapingControlCharacters == kept)
    }
  }

  @Test func jsonEscapesEveryControl() {
    let line = JSONValue.string(Self.hostile).serialized
    #expect(line == #""\u001b]0;pwned\u0007\u001b[2J\rSPOOF\u0000\u007f\u009b1m""#)
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
  }
}

/// Whether a terminal shows `scalar` where it stands rather than acting on it or reordering the
/// line around it.
private func isVisible(_ scalar: Unicode.Scalar) -> Bool {
  scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value)
    && ![0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(scalar.value)
    && !(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value)
}
