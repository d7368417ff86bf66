// TCA's case-study tests, ported: our own rewrite of the tests of TCA's Effects-Basics,
// Effects-Cancellation and Timers case studies and of its Search example, on LoadctlTestKit's
// TestStore. Each test sends, receives and asserts what TCA's does, in the same order. Where
// they differ: `await store.send` and `await store.receive` are synchronous calls (the store runs
// on the VirtualClock's executor); `receive(\.case.path)` is a closure matching the case;
// dependencies are the features' init parameters; `cancelInFlight: true` is `policy: .replace`.

/// The outcome of `body` as a `Result`, as TCA's `Result { try await … }` gives it.
func result<Success>(_ body: () async throws -> Success) async -> Result<Success, any Error> {
  do {
    return .success(try await body())
  } catch {
    return .failure(error)
  }
}

/// An error a fake client throws.
struct SomethingWentWrong: Error, Equatable {}
