import Testing

@testable import LoadctlCommands

/// Matching in memory: canonical equivalence holds, and a query longer than any name is quick.
@Suite struct SearchCorpusTests {
  /// A decomposed query finds a precomposed name and the reverse, as Swift's string comparison
  /// does: the length bound that skips names counts a scalar's largest decomposition.
  @Test func canonicallyEquivalentTextMatches() {
    let corpus = SearchCorpus(names: ["caf\u{E9}", "cafe\u{301}s", "tea"])
    #expect(corpus.search("cafe\u{301}", limit: 5).items == ["caf\u{E9}", "cafe\u{301}s"])
    #expect(corpus.search("caf\u{E9}s", limit: 5).items == ["cafe\u{301}s"])
    #expect(corpus.search("\u{1F82}", limit: 5).total == 0)
  }

  /// One character with 50,000 combining marks is longer than any built-in name, so no name is
  /// compared with it (each comparison normalised it again: more than 20 s per search; the time
  /// is not asserted here, only that skipping loses no match).
  @Test func aQueryLongerThanEveryNameMatchesNothing() {
    let query = "a" + String(repeating: "\u{301}", count: 50_000)
    #expect(query.count == 1)
    #expect(SearchCorpus.builtIn.search(query, limit: 5).total == 0)
    let spelled = SearchCorpus(names: ["\u{1F82}x"])
    // U+1F82 is four scalars decomposed: the bound lets its decomposed spelling through.
    #expect(spelled.search("\u{3B1}\u{313}\u{300}\u{345}", limit: 5).items == ["\u{1F82}x"])
  }
}
