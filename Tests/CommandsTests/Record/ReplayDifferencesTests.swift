import Testing

@testable import LoadctlCommands

/// The `differs:` line of a divergence report: each differing field once, by its path, recorded
/// value first, whatever the size of the objects compared.
@Suite struct ReplayDifferencesTests {
  @Test func eachDifferingFieldIsNamedOnceByItsPath() {
    let recorded: JSONValue = .object([
      ("event", "tick"), ("to", .object([("ticks", 3), ("on", true)])), ("gone", 1), ("gone", 2),
    ])
    let replayed: JSONValue = .object([
      ("event", "tick"), ("to", .object([("ticks", 4), ("on", true)])), ("new", "x"),
    ])
    #expect(
      ReplaySession.differences(recorded, replayed, path: "") == [
        "to.ticks: 3 → 4", "gone: 1 → (absent)", #"new: (absent) → "x""#,
      ])
  }

  /// An object of 50,000 keys against one without them: every key is named, in order (the
  /// report used to look each key up by a scan, quadratic in the keys).
  @Test func aWideObjectIsComparedKeyByKey() {
    let keys = (0..<50_000).map { "k\($0)" }
    let wide: JSONValue = .object(keys.map { ($0, JSONValue.int(1)) })
    let lines = ReplaySession.differences(wide, .object([("k0", 1)]), path: "")
    #expect(lines.count == 49_999)
    #expect(lines.first == "k1: 1 → (absent)")
    #expect(lines.last == "k49999: 1 → (absent)")
  }
}
