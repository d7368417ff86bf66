import LoadctlCore
import Testing

typealias Profile = LoadState<String>

/// What a transition did: whether it applied, and the state after it.
private struct Step: Equatable {
  var applied: Bool
  var state: Profile
}

private func step(_ start: Profile, _ transition: (inout Profile) -> Bool) -> Step {
  var state = start
  let applied = transition(&state)
  return Step(applied: applied, state: state)
}

@Suite struct LoadStateTests {
  @Test(arguments: [Profile.idle, .loaded("Taylor"), .failed("offline")])
  func startLoadingMovesToLoading(start: Profile) {
    #expect(step(start) { $0.startLoading() } == Step(applied: true, state: .loading))
  }

  @Test func startLoadingWhileLoadingIsIgnored() {
    #expect(step(.loading) { $0.startLoading() } == Step(applied: false, state: .loading))
  }

  @Test func cancelReturnsALoadInFlightToIdle() {
    #expect(step(.loading) { $0.cancel() } == Step(applied: true, state: .idle))
  }

  @Test(arguments: [Profile.idle, .loaded("Taylor"), .failed("offline")])
  func cancelWithNothingLoadingChangesNothing(start: Profile) {
    #expect(step(start) { $0.cancel() } == Step(applied: false, state: start))
  }

  @Test func successStoresTheValue() {
    #expect(
      step(.loading) { $0.finish(.success("Taylor")) }
        == Step(applied: true, state: .loaded("Taylor")))
  }

  @Test func failureKeepsItsMessage() {
    #expect(
      step(.loading) { $0.finish(.failure(LoadFailure("server said 503"))) }
        == Step(applied: true, state: .failed("server said 503")))
  }

  @Test func retryMovesFailedBackToLoading() {
    #expect(step(.failed("offline")) { $0.retry() } == Step(applied: true, state: .loading))
  }

  @Test(arguments: [Profile.idle, .loading, .loaded("Taylor")])
  func retryFromAnyOtherStateIsIgnored(start: Profile) {
    #expect(step(start) { $0.retry() } == Step(applied: false, state: start))
  }

  @Test(arguments: [Profile.idle, .loaded("Taylor"), .failed("offline")])
  func aLateResultIsDropped(start: Profile) {
    #expect(step(start) { $0.finish(.success("late")) } == Step(applied: false, state: start))
    #expect(
      step(start) { $0.finish(.failure(LoadFailure("late"))) }
        == Step(applied: false, state: start))
  }

  @Test func namesAndIsLoading() {
    let states: [Profile] = [.idle, .loading, .loaded("Taylor"), .failed("offline")]
    #expect(states.map(\.name) == ["idle", "loading", "loaded", "failed"])
    #expect(states.map(\.isLoading) == [false, true, false, false])
    #expect(LoadFailure("offline").description == "offline")
  }
}
