import LoadctlCore
import LoadctlTestKit
import Testing

/// TCA's Effects-Cancellation case study: a fact request that the cancel button, or a change of
/// the number, cancels.
private struct EffectsCancellation: Sendable {
  struct State: Equatable, Sendable {
    var count = 0
    var currentFact: String?
    var isFactRequestInFlight = false
  }

  enum Action: Sendable {
    case cancelButtonTapped
    case stepperChanged(Int)
    case factButtonTapped
    case factResponse(Result<String, any Error>)
  }

  private enum CancelID { case factRequest }

  let fetch: @Sendable (Int) async throws -> String

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .cancelButtonTapped:
      state.isFactRequestInFlight = false
      return .cancel(id: CancelID.factRequest)
    case .stepperChanged(let value):
      state.count = value
      state.currentFact = nil
      state.isFactRequestInFlight = false
      return .cancel(id: CancelID.factRequest)
    case .factButtonTapped:
      state.currentFact = nil
      state.isFactRequestInFlight = true
      return .run { [count = state.count, fetch] send in
        send(.factResponse(await result { try await fetch(count) }))
      }
      .cancellable(id: CancelID.factRequest)
    case .factResponse(.success(let response)):
      state.isFactRequestInFlight = false
      state.currentFact = response
      return .none
    case .factResponse(.failure):
      state.isFactRequestInFlight = false
      return .none
    }
  }
}

private func makeStore(
  clock: VirtualClock = VirtualClock(), fetch: @escaping @Sendable (Int) async throws -> String
) -> TestStore<EffectsCancellation.State, EffectsCancellation.Action> {
  TestStore(initialState: EffectsCancellation.State(), clock: clock) {
    EffectsCancellation(fetch: fetch).reduce(into: &$0, action: $1)
  }
}

private func isSuccess(_ action: EffectsCancellation.Action) -> Bool {
  if case .factResponse(.success) = action { true } else { false }
}

private func isFailure(_ action: EffectsCancellation.Action) -> Bool {
  if case .factResponse(.failure) = action { true } else { false }
}

@Suite struct EffectsCancellationTests {
  @Test func triviaSuccessfulRequest() {
    let store = makeStore { "\($0) is a good number Brent" }
    store.send(.stepperChanged(1)) { $0.count = 1 }
    store.send(.stepperChanged(0)) { $0.count = 0 }
    store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
    store.receive(isSuccess) {
      $0.currentFact = "0 is a good number Brent"
      $0.isFactRequestInFlight = false
    }
  }

  @Test func triviaFailedRequest() {
    let store = makeStore { _ in throw SomethingWentWrong() }
    store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
    store.receive(isFailure) { $0.isFactRequestInFlight = false }
  }

  /// The cancel button really cancels the request: the fake never answers (TCA's
  /// `Task.never()`), and the store ends with no effect in flight.
  @Test func triviaCancelButtonCancelsRequest() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { _ in
      try await clock.sleep(until: .init(offset: .seconds(1_000_000)))
      return "never"
    }
    store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
    store.send(.cancelButtonTapped) { $0.isFactRequestInFlight = false }
  }

  @Test func triviaPlusMinusButtonsCancelsRequest() {
    let clock = VirtualClock()
    let store = makeStore(clock: clock) { _ in
      try await clock.sleep(until: .init(offset: .seconds(1_000_000)))
      return "never"
    }
    store.send(.factButtonTapped) { $0.isFactRequestInFlight = true }
    store.send(.stepperChanged(1)) {
      $0.count = 1
      $0.isFactRequestInFlight = false
    }
  }
}
