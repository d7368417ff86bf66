// The store-throughput figure of scripts/bench.sh: actions per second through `Store.run` with a
// reducer that returns `.none`, against a plain loop calling the same reduce function (goal:
// the store at ≥ 0.3× the loop). Both run in this process, alternating, ROUNDS times each; the
// medians are printed as one JSON line:
// {"actions":1000000,"rounds":3,"store_per_s":…,"loop_per_s":…,"ratio":…,"mailbox_per_s":…}
//
// Every action the store applies is reported to an observer (here one that counts), as loadctl's
// renderer is; the inputs are a synchronous counting sequence, so what is measured is the store:
// the reducer call, the report and the run loop around them. With no effect in flight the store
// pulls its inputs itself; `mailbox_per_s` is the same run with one effect in flight from the
// first action on, so every input goes through the pump task and the mailbox, as in a flow that
// keeps a timer or a feed running. This program is a benchmark, not part of loadctl: it reads
// the real clock on purpose.
//
// Usage: StoreThroughput [ACTIONS] [ROUNDS]   (defaults: 1000000 3)

import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The state and action of the measured flow: one counter, one action.
enum Tally {
  struct State: Sendable { var count = 0 }
  enum Action: Sendable {
    case add(Int)
    /// Starts an effect that runs until the run ends (the mailbox figure only).
    case hold
    /// Ends the run (the mailbox figure only).
    case finish
  }

  /// The reduce function both sides call: for `add`, no effects, nothing but the state change.
  @inline(never)
  static func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .add(let amount): state.count &+= amount
    case .hold: return .run { _ in try await Task.sleep(for: .seconds(3600)) }
    case .finish: return .finishRun
    }
    return .none
  }
}

/// `count` actions, produced without suspending, so the inputs cost as little as they can.
struct Actions: AsyncSequence, Sendable {
  let count: Int

  /// Whether to start with `hold` and end with `finish`, for the mailbox figure.
  var holding = false

  struct AsyncIterator: AsyncIteratorProtocol {
    var remaining: Int
    var holding: Bool
    var started = false
    mutating func next() async -> Tally.Action? {
      if holding, !started {
        started = true
        return .hold
      }
      guard remaining > 0 else {
        guard holding else { return nil }
        holding = false
        return .finish
      }
      remaining -= 1
      return .add(1)
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: count, holding: holding) }
}

let arguments = CommandLine.arguments.dropFirst()
let actions = arguments.first.flatMap(Int.init) ?? 1_000_000
let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 3
guard actions > 0, rounds > 0 else {
  print("usage: StoreThroughput [ACTIONS] [ROUNDS]  (both positive integers)")
  exit(64)
}

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
  let (whole, attoseconds) = duration.components
  return Double(whole) + Double(attoseconds) / 1e18
}

/// Actions per second through the store; checks that every action was applied.
/// - Parameter holding: Keep an effect in flight, so that inputs go through the mailbox.
func measureStore(holding: Bool = false) async -> Double {
  let store = Store(initialState: Tally.State()) { state, action in
    Tally.reduce(into: &state, action: action)
  }
  var observed = 0
  let start = clock.now
  let result = await store.run(inputs: Actions(count: actions, holding: holding)) { _ in
    observed += 1
  }
  let elapsed = start.duration(to: clock.now)
  precondition(result.state.count == actions && observed >= actions, "the store lost actions")
  return Double(actions) / seconds(elapsed)
}

/// Actions per second through a plain loop over the same reduce function.
func measureLoop() -> Double {
  var state = Tally.State()
  let start = clock.now
  for _ in 0..<actions {
    _ = Tally.reduce(into: &state, action: .add(1))
  }
  let elapsed = start.duration(to: clock.now)
  precondition(state.count == actions, "the loop lost actions")
  return Double(actions) / seconds(elapsed)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

var storeRates: [Double] = []
var loopRates: [Double] = []
var mailboxRates: [Double] = []
for _ in 0..<rounds {
  storeRates.append(await measureStore())
  loopRates.append(measureLoop())
  mailboxRates.append(await measureStore(holding: true))
}
let store = median(storeRates)
let loop = median(loopRates)
let mailbox = median(mailboxRates)
let ratio = (store / loop * 10_000).rounded() / 10_000
print(
  "{\"actions\":\(actions),\"rounds\":\(rounds),\"store_per_s\":\(Int(store)),"
    + "\"loop_per_s\":\(Int(loop)),\"ratio\":\(ratio),\"mailbox_per_s\":\(Int(mailbox))}")
