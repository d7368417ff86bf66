import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

@Suite struct SearchBackendTests {
  // MARK: Corpus

  @Test func prefixMatchesComeFirstThenShorterThenByName() {
    let corpus = SearchCorpus(names: [
      "withTaskGroup", "TaskGroup", "Task", "task.value", "View.task(id:)", "Task.sleep", "Text",
    ])
    let hits = corpus.search("TASK", limit: 10)
    #expect(
      hits.items == [
        "Task", "TaskGroup", "Task.sleep", "task.value", "withTaskGroup", "View.task(id:)",
      ])
    #expect(hits.total == 6)
  }

  @Test func limitKeepsTheBestAndCountsTheRest() {
    let hits = SearchCorpus.builtIn.search("task", limit: 3)
    #expect(hits.items == ["Task", "TaskGroup", "TaskLocal"])
    #expect(hits.total > 30)
    #expect(hits.countText == "3 of \(hits.total)")
    #expect(SearchCorpus.builtIn.search("zzzz", limit: 3) == SearchHits(items: [], total: 0))
    #expect(SearchHits(items: [], total: 0).countText == "none")
  }

  @Test func theBuiltInCorpusHasAFewHundredUniqueRealNames() {
    let names = SearchCorpus.builtIn.names
    #expect(names.count >= 300)
    #expect(Set(names).count == names.count)
    for name in ["AsyncStream", "View.task(id:priority:_:)", "NavigationStack", "Task.sleep(for:)"]
    {
      #expect(names.contains(name))
    }
  }

  @Test func duplicatesAndEmptyNamesAreDropped() {
    #expect(SearchCorpus(names: ["a", "", "b", "a"]).names == ["a", "b"])
  }

  @Test func aCorpusFileIsItsTrimmedNonEmptyLines() throws {
    let path = try temporaryFile("  alpha \r\nbeta\n\n\tgamma\nbeta\n")
    defer { unlink(path) }
    #expect(try SearchCorpus.load(path).names == ["alpha", "beta", "gamma"])
  }

  @Test(arguments: [
    ("", "has no names (one per line)"),
    ("\n  \n", "has no names (one per line)"),
    ("caf\u{FF}", "is not UTF-8 text"),
  ])
  func anUnusableCorpusFileIsOneClearError(contents: String, problem: String) throws {
    let path = try temporaryFile(contents, latin1: true)
    defer { unlink(path) }
    let error = #expect(throws: InputFile.Failure.self) { try SearchCorpus.load(path) }
    #expect(error?.message == "'\(path)' for --corpus \(problem)")
  }

  @Test func aMissingCorpusFileSaysSo() {
    let error = #expect(throws: InputFile.Failure.self) {
      try SearchCorpus.load("/nonexistent/names.txt")
    }
    #expect(
      error?.message
        == "cannot open '/nonexistent/names.txt' for --corpus: No such file or directory")
  }

  // MARK: URL template

  @Test(arguments: [
    ("swift", "swift"), ("a&b c", "a%26b%20c"), ("Task.sleep(for:)", "Task.sleep%28for%3A%29"),
    ("ü/?#=+", "%C3%BC%2F%3F%23%3D%2B"), ("-._~", "-._~"),
  ])
  func queriesArePercentEncodedAsUTF8(query: String, encoded: String) throws {
    #expect(SearchURLTemplate.percentEncode(query) == encoded)
    let template = try SearchURLTemplate("http://127.0.0.1:8080/search?q={query}&echo={query}")
    #expect(template.url(for: query) == "http://127.0.0.1:8080/search?q=\(encoded)&echo=\(encoded)")
  }

  @Test(arguments: [
    (
      "http://localhost/search",
      "'--url' needs {query} where the query goes, e.g. 'http://localhost:8080/search?q={query}'"
    ),
    (
      "ftp://localhost/{query}",
      "unsupported URL scheme 'ftp' in 'ftp://localhost/swift' (use http or https) for '--url'"
    ),
  ])
  func aBadTemplateIsAUsageError(template: String, message: String) {
    let error = #expect(throws: UsageError.self) { try SearchURLTemplate(template) }
    #expect(error?.message == message)
  }

  @Test func aResponseMustBeAJSONArrayOfStrings() throws {
    let url = "http://host/s?q=x"
    #expect(try SearchURLTemplate.decode(Array(#"["a","b"]"#.utf8), from: url) == ["a", "b"])
    #expect(try SearchURLTemplate.decode(Array("[]".utf8), from: url) == [])
    for body in [#"{"a":1}"#, #"["a",1]"#] {
      let error = #expect(throws: LoadFailure.self) {
        try SearchURLTemplate.decode(Array(body.utf8), from: url)
      }
      #expect(error?.message == "response from \(url) is not a JSON array of strings")
    }
    let error = #expect(throws: LoadFailure.self) {
      try SearchURLTemplate.decode(Array("<html>".utf8), from: url)
    }
    #expect(error?.message.hasPrefix("response from \(url) is not JSON: ") == true)
  }

  // MARK: Latency and SeededGenerator.output

  @Test func splitMix64MatchesTheReferenceOutputs() {
    // The reference C implementation (prng.di.unimi.it/splitmix64.c) seeded with 1234567.
    let expected: [UInt64] = [
      6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
      4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
    ]
    var generator = SeededGenerator(seed: 1_234_567)
    #expect((1...5).map { _ in generator.next() } == expected)
    #expect((1...5).map { SeededGenerator.output(seed: 1_234_567, index: $0) } == expected)
  }

  @Test func jitterIsAFunctionOfSeedAndRequestNumberOnly() {
    let model = SearchLatency(latency: .milliseconds(200), jitter: .milliseconds(400), seed: 7)
    let extras = (1...5).map { model.delay(forRequest: $0) - .milliseconds(200) }
    // (SplitMix64 output n of seed 7 × 400_000_001) >> 64, in nanoseconds: see docs/search.md.
    #expect(
      extras
        == [155_931_899, 6_715_317, 360_304_273, 233_172_117, 180_976_758].map {
          Duration.nanoseconds($0)
        })
    #expect(model.delay(forRequest: 3) == model.delay(forRequest: 3))
    let other = SearchLatency(latency: .milliseconds(200), jitter: .milliseconds(400), seed: 8)
    #expect(other.delay(forRequest: 1) != model.delay(forRequest: 1))
  }

  @Test func withoutJitterEveryRequestTakesTheLatency() {
    let model = SearchLatency(latency: .milliseconds(250))
    #expect((1...20).allSatisfy { model.delay(forRequest: $0) == .milliseconds(250) })
  }

  @Test func jitterStaysWithinItsBound() {
    let model = SearchLatency(latency: .zero, jitter: .nanoseconds(3), seed: 42)
    let extras = Set((1...2_000).map { model.delay(forRequest: $0) })
    #expect(extras == Set((0...3).map { Duration.nanoseconds($0) }))
  }

  @Test func randomSeedsFitInAJSONNumber() {
    #expect((1...100).allSatisfy { _ in SearchLatency.randomSeed() < 1 << 53 })
  }
}

/// Writes `contents` to a new temporary file and returns its path.
private func temporaryFile(_ contents: String, latin1: Bool = false) throws -> String {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("search-\(UUID().uuidString).txt").path
  let bytes =
    latin1
    ? contents.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } : Array(contents.utf8)
  guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
    throw CocoaError(.fileWriteUnknown)
  }
  return path
}
