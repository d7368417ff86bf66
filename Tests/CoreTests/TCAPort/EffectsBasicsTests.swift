import LoadctlCore
import LoadctlTestKit
import Testing

/// TCA's Effects-Basics case study: a counter whose decrement below zero is undone a second
/// later, unless an increment cancels that, and a number fact fetched on request.
private struct EffectsBasics: Sendable {
  struct State: Equatable, Sendable {
    var count = 0
    var isNumberFactRequestInFlight = false
    var numberFact: String?
  }

  enum Action: Sendable {
    case decrementButtonTapped
    case decrementDelayResponse
    case incrementButtonTapped
    case numberFactButtonTapped
    case numberFactResponse(Result<String, any Error>)
  }

  private enum CancelID { case delay }

  let clock: any Clock<Duration>
  var fetch: @Sendable (Int) async throws -> String = { _ in throw SomethingWentWrong() }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .decrementButtonTapped:
      state.count -= 1
      state.numberFact = nil
      return state.count >= 0
        ? .none
        : .run { [clock] send in
          try await clock.sleep(for: .seconds(1))
          send(.decrementDelayResponse)
        }
        .cancellable(id: CancelID.delay)
    case .decrementDelayResponse:
      if state.count < 0 { state.count += 1 }
      return .none
    case .incrementButtonTapped:
      state.count += 1
      state.numberFact = nil
      return state.count >= 0 ? .cancel(id: CancelID.delay) : .none
    case .numberFactButtonTapped:
      state.isNumberFactRequestInFlight = true
      state.numberFact = nil
      return .run { [count = state.count, fetch] send in
        send(.numberFactResponse(await result { try await fetch(count) }))
      }
    case .numberFactResponse(.success(let response)):
      state.isNumberFactRequestInFlight = false
      state.numberFact = response
      return .none
    case .numberFactResponse(.failure):
      state.isNumberFactRequestInFlight = false
      return .none
    }
  }
}

private func makeStore(
  clock: any Clock<Duration>,
  fetch: @escaping @Sendable (Int) async throws -> String = { _ in throw SomethingWentWrong() }
) -> TestStore<EffectsBasics.State, EffectsBasics.Action> {
  TestStore(initialState: EffectsBasics.State()) {
    EffectsBasics(clock: clock, fetch: fetch).reduce(into: &$0, action: $1)
  }
}

@Suite struct EffectsBasicsTests {
  @Test func countDown() {
    let store = makeStore(clock: ImmediateClock())
    store.send(.incrementButtonTapped) { $0.count = 1 }
    store.send(.decrementButtonTapped) { $0.count = 0 }
  }

  @Test func numberFact() {
    let store = makeStore(clock: ImmediateClock()) { "\($0) is a good number Brent" }
    store.send(.incrementButtonTapped) { $0.count = 1 }
    store.send(.numberFactButtonTapped) { $0.isNumberFactRequestInFlight = true }
    store.receive({ if case .numberFactResponse(.success) = $0 { true } else { false } }) {
      $0.isNumberFactRequestInFlight = false
      $0.numberFact = "1 is a good number Brent"
    }
  }

  @Test func decrement() {
    let store = makeStore(clock: ImmediateClock())
    store.send(.decrementButtonTapped) { $0.count = -1 }
    store.receive({ if case .decrementDelayResponse = $0 { true } else { false } }) {
      $0.count = 0
    }
  }

  @Test func decrementCancellation() {
    let store = makeStore(clock: VirtualClock())
    store.send(.decrementButtonTapped) { $0.count = -1 }
    store.send(.incrementButtonTapped) { $0.count = 0 }
  }
}
