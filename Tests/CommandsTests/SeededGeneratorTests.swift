import Testing

@testable import LoadctlCommands

@Suite struct SeededGeneratorTests {
  /// The published SplitMix64 outputs for seed 1234567 (also produced by the Python port in the
  /// type's documentation), so a change to the algorithm cannot go unnoticed.
  @Test func matchesTheReferenceSequence() {
    var generator = SeededGenerator(seed: 1_234_567)
    let outputs = (0..<5).map { _ in generator.next() }
    #expect(
      outputs == [
        6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
        4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
      ])
  }

  @Test func seedZeroIsAnOrdinarySeed() {
    var generator = SeededGenerator(seed: 0)
    #expect(generator.next() == 16_294_208_416_658_607_535)
    #expect(generator.next() == 7_960_286_522_194_355_700)
  }

  @Test func equalSeedsGiveEqualSequencesAndTheStateCanResume() {
    var first = SeededGenerator(seed: 42)
    var second = SeededGenerator(seed: 42)
    _ = first.next()
    _ = second.next()
    var resumed = SeededGenerator(seed: first.state)
    let next = first.next()
    #expect(next == second.next())
    #expect(resumed.next() == next)
  }

  @Test func unitDoublesUseTheTop53Bits() {
    var generator = SeededGenerator(seed: 1_234_567)
    var copy = generator
    let double = generator.nextUnitDouble()
    #expect(double == Double(copy.next() >> 11) / 9_007_199_254_740_992)
    #expect((0..<1).contains(double))
  }

  @Test func systemSeedsStayExactInJSON() {
    for _ in 0..<100 {
      #expect(SeededGenerator.systemSeed() < 1 << 53)
    }
  }
}
