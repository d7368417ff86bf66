/// How much of what happens a ``TestStore`` requires a test to assert.
public enum Exhaustivity: Sendable, Equatable {
  /// Every state change, every received action and every effect's end.
  case on
  /// Only what the test asserts: received actions before the one asserted are skipped, a
  /// state closure checks only the fields it sets, and effects left in flight at the end are
  /// cancelled. With `showSkippedAssertions`, what was skipped is recorded as a known issue.
  case off(showSkippedAssertions: Bool)

  /// Exhaustivity off, skipping silently.
  public static let off = Exhaustivity.off(showSkippedAssertions: false)
}
