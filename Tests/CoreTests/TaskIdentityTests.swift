import LoadctlCore
import Testing

private enum Act: Equatable, Sendable {
  case render(String)
  case disappear
  case results(String)
}

private struct Search: Equatable, Sendable {
  var query = TaskIdentity<String>()
  var results: [String] = []
}

/// A search view: every render asks for the search of its query; the work starts only when the
/// query changed. `began` counts how often a search really started.
private func search(clock: TestClock, began: Recorder<String>) -> Store<Search, Act>.Reducer {
  { state, action in
    switch action {
    case .render(let query):
      return state.query.task(id: query, key: "search") {
        .run(name: "search \(query)") { send in
          began.append(query)
          try await clock.sleep(for: .seconds(1))
          send(.results(query))
        }
      }
    case .disappear:
      return state.query.reset(key: "search")
    case .results(let query):
      state.results.append(query)
      return .none
    }
  }
}

private func makeHarness(began: Recorder<String>) -> StoreHarness<Search, Act> {
  let clock = TestClock()
  return StoreHarness(
    initialState: Search(), clock: clock, reducer: search(clock: clock, began: began))
}

@Suite struct TaskIdentityTests {
  @Test func theSameIdDoesNotRestartTheWork() {
    let began = Recorder<String>()
    let harness = makeHarness(began: began)
    for _ in 1...1_000 { harness.send(.render("swift")) }
    let lines = harness.take()
    #expect(lines.filter { $0 == "apply render(\"swift\")" }.count == 1_000)
    #expect(lines.filter { !$0.hasPrefix("apply") } == ["start search swift#1"])
    #expect(began.values == ["swift"])
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply results(\"swift\")", "end search swift#1 finished"])
    #expect(harness.state.results == ["swift"])
  }

  @Test func aNewIdCancelsTheOldWorkBeforeStartingItsOwn() {
    let began = Recorder<String>()
    let harness = makeHarness(began: began)
    harness.send(.render("sw"))
    harness.clock.advance(by: .milliseconds(500))
    harness.send(.render("swift"))
    #expect(
      harness.take() == [
        "apply render(\"sw\")", "start search sw#1",
        "apply render(\"swift\")", "queue search swift#2",
        "end search sw#1 cancelled", "start search swift#2",
      ])
    harness.clock.advance(by: .seconds(1))
    #expect(harness.take() == ["apply results(\"swift\")", "end search swift#2 finished"])
    #expect(harness.state.results == ["swift"])
    #expect(began.values == ["sw", "swift"])
    #expect(harness.clock.now == TestClock.Instant(offset: .milliseconds(1_500)))
  }

  @Test func resetCancelsTheWorkAndForgetsTheId() {
    let began = Recorder<String>()
    let harness = makeHarness(began: began)
    harness.send(.render("swift"))
    harness.send(.disappear)
    #expect(harness.state.query.current == nil)
    harness.send(.render("swift"))
    harness.clock.run()
    #expect(
      harness.take() == [
        "apply render(\"swift\")", "start search swift#1",
        "apply disappear", "end search swift#1 cancelled",
        "apply render(\"swift\")", "start search swift#2",
        "apply results(\"swift\")", "end search swift#2 finished",
      ])
    #expect(harness.state.results == ["swift"])
  }

  @Test func taskReturnsNoneForTheSameIdAndALatestEffectForANewOne() {
    var identity = TaskIdentity<Int>()
    let built = Recorder<Int>()
    let first: Effect<Act> = identity.task(id: 1, key: "k") {
      built.append(1)
      return .send(.disappear)
    }
    let again: Effect<Act> = identity.task(id: 1, key: "k") {
      built.append(2)
      return .send(.disappear)
    }
    #expect(first.isNone == false)
    #expect(again.isNone)
    #expect(built.values == [1])
    #expect(identity.current == 1)
    let reset: Effect<Act> = identity.reset(key: "k")
    #expect(reset.isNone == false)
    #expect(identity.current == nil)
  }
}
