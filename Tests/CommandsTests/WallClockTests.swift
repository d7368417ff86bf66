import Testing

@testable import LoadctlCommands

@Suite struct WallClockTests {
  @Test(arguments: [
    (0, 0, "1970-01-01T00:00:00.000Z"),
    (1_795_103_999, 7, "2026-11-19T15:59:59.007Z"),
    (951_782_400, 999, "2000-02-29T00:00:00.999Z"),
  ])
  func formatsUTCAsRFC3339WithMilliseconds(seconds: Int, millis: Int, expected: String) {
    #expect(WallClock.format(seconds: seconds, milliseconds: millis) == expected)
  }

  @Test func nowHasTheSameShapeAsTheVirtualEpoch() {
    let now = WallClock.now()
    #expect(now.count == WallClock.virtualEpoch.count)
    #expect(now.hasSuffix("Z") && now.dropFirst(10).first == "T")
    #expect(now > "2024-01-01T00:00:00.000Z")
  }
}
