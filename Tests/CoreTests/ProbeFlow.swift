import LoadctlCore
import LoadctlTestKit
import Testing

// A flow for testing one effect kind at a time: `go` returns the effect under test.

enum ProbeAction: Equatable, Sendable {
  case go
  case got(Int)
  case caught(String)
  case cancel
  case stop
}

struct Probe: Equatable, Sendable {
  var got: [Int] = []
  var caught: [String] = []
}

struct Boom: Error, CustomStringConvertible {
  var description: String { "boom" }
}

/// A reducer whose `go` returns the effect under test; `got` and `caught` record what it sent.
func probe(
  clock: VirtualClock, _ effect: @escaping @Sendable (VirtualClock) -> Effect<ProbeAction>
) -> Store<Probe, ProbeAction>.Reducer {
  { state, action in
    switch action {
    case .go:
      return effect(clock)
    case .got(let value):
      state.got.append(value)
      return .none
    case .caught(let message):
      state.caught.append(message)
      return .none
    case .cancel:
      return .cancel(id: "x")
    case .stop:
      return .finishRun
    }
  }
}

/// A finite input sequence, like command-line arguments.
struct ProbeInputs: AsyncSequence, Sendable {
  struct AsyncIterator: AsyncIteratorProtocol {
    var remaining: ArraySlice<ProbeAction>
    mutating func next() async -> ProbeAction? { remaining.popFirst() }
  }

  let actions: [ProbeAction]

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: actions[...]) }
}

func makeProbeStore(
  _ effect: @escaping @Sendable (VirtualClock) -> Effect<ProbeAction>
) -> TestStore<Probe, ProbeAction> {
  let clock = VirtualClock()
  return TestStore(initialState: Probe(), clock: clock, reducer: probe(clock: clock, effect))
}

func effectLines(_ store: TestStore<Probe, ProbeAction>) -> [String] {
  store.effectEvents.map(describe)
}
