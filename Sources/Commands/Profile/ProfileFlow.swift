import LoadctlCore

/// The profile screen's state: a `LoadState` plus the retry bookkeeping around it.
package struct ProfileState: Sendable, Equatable, ReportableState {
  package var load: LoadState<Profile> = .idle
  /// Which attempt of the current load is in flight or failed last (1 = first try).
  package var attempt = 0
  /// Whether an automatic retry is waiting for its backoff.
  package var retryPending = false

  package init() {}

  package var snapshot: JSONValue {
    var pairs: [(String, JSONValue)] = [("state", .string(load.name))]
    switch load {
    case .idle: break
    case .loading: pairs.append(("attempt", .int(attempt)))
    case .loaded(let profile): pairs.append(("profile", profile.fields))
    case .failed(let message):
      pairs += [
        ("message", .string(message)), ("attempt", .int(attempt)),
        ("retry_pending", .bool(retryPending)),
      ]
    }
    return .object(pairs)
  }

  /// The state for text output: what a source gave (the profile's fields, a failure's message)
  /// has its control characters escaped.
  package var summary: String {
    switch load {
    case .idle: "idle"
    case .loading: attempt > 1 ? "loading(attempt \(attempt))" : "loading"
    case .loaded(let profile): "loaded(\(profile.summary.escapingControlCharacters))"
    case .failed(let message): "failed(\(message.escapingControlCharacters))"
    }
  }
}

/// What can happen to the profile screen.
package enum ProfileAction: Sendable, Equatable, ReportableAction {
  /// Start loading (the screen's `.task`, or an input line); ignored while loading.
  case load
  /// The retry button: only from `failed`.
  case retry
  /// Stop the load in flight: back to `idle`, never an error.
  case cancel
  /// End the run.
  case quit
  /// The fetch finished.
  case loadResponse(Result<Profile, LoadFailure>)
  /// The backoff after a failure elapsed.
  case autoRetry
  /// The process is stopping (Ctrl-C, SIGTERM): like `cancel`, but never refused.
  case interrupt
  /// Sent by a load's effect for the stderr lines of its command (`--exec`) or curl (`--url`),
  /// as they come; the state stays.
  case output(ExternalCommand.Output)

  package var name: String {
    switch self {
    case .output: "output"
    case .load: "load"
    case .retry: "retry"
    case .cancel: "cancel"
    case .quit: "quit"
    case .loadResponse: "load_response"
    case .autoRetry: "auto_retry"
    case .interrupt: "interrupt"
    }
  }

  package var fields: [(String, JSONValue)] {
    if case .output(let output) = self { return output.fields }
    guard case .loadResponse(let result) = self else { return [] }
    switch result {
    case .success: return [("ok", true)]
    case .failure(let failure): return [("ok", false), ("message", .string(failure.message))]
    }
  }

  /// Parses an `--input` line: `load`, `retry`, `cancel`, `quit`.
  package static func parse(_ text: String) -> Result<ProfileAction, LineProblem> {
    switch text.lowercasedWord {
    case "load", "l": .success(.load)
    case "retry", "r": .success(.retry)
    case "cancel", "c": .success(.cancel)
    case "quit", "q": .success(.quit)
    default:
      .failure(
        LineProblem("unknown action '\(text)' (expected load, retry, cancel or quit)"))
    }
  }
}

/// The profile flow: the SwiftUI `.task` loading pattern's `ProfileModel.load()` as a reducer, plus retries with backoff.
package struct ProfileFlow: Sendable {
  /// Fetches the profile, handing what its command prints on stderr to `show`; throws
  /// `LoadFailure` (or any error) on failure.
  package let fetch: Fetch
  package typealias Fetch =
    @Sendable (_ show: @escaping @Sendable (ExternalCommand.Output) -> Void) async throws
    -> Profile
  package let clock: any Clock<Duration>
  /// Automatic retries after a failure.
  package let retries: Int
  /// The first backoff; each later one doubles.
  package let backoff: Duration

  package static let fetchID: EffectID = "fetch"
  package static let backoffID: EffectID = "backoff"

  package init(
    fetch: @escaping Fetch, clock: any Clock<Duration>, retries: Int, backoff: Duration
  ) {
    self.fetch = fetch
    self.clock = clock
    self.retries = retries
    self.backoff = backoff
  }

  package func reduce(_ state: inout ProfileState, _ action: ProfileAction) -> Effect<ProfileAction>
  {
    switch action {
    case .load:
      guard state.load.startLoading() else { return .ignored("already loading") }
      state.attempt = 1
      state.retryPending = false
      return .merge(.cancel(id: Self.backoffID), fetchEffect())
    case .retry, .autoRetry:
      if state.load.isLoading { return .ignored("already loading") }
      guard state.load.retry() else { return .ignored("nothing to retry") }
      state.attempt += 1
      state.retryPending = false
      // The automatic retry is the backoff effect's own last act: cancelling it would show a
      // finished wait as cancelled. A manual retry replaces a pending backoff.
      return action == .autoRetry
        ? fetchEffect() : .merge(.cancel(id: Self.backoffID), fetchEffect())
    case .cancel, .interrupt:
      if state.load.cancel() {
        return .cancel(id: Self.fetchID)
      }
      if state.retryPending {
        state.retryPending = false
        return .cancel(id: Self.backoffID)
      }
      return action == .cancel ? .ignored("not loading") : .none
    case .output:
      return .none
    case .quit:
      // Ends the run as the `q` key does: what was in flight is cancelled, and says so.
      _ = state.load.cancel()
      state.retryPending = false
      return .finishRun
    case .loadResponse(let result):
      guard state.load.finish(result) else { return .ignored("no load in flight") }
      guard case .failure = result, state.attempt <= retries else { return .none }
      state.retryPending = true
      let delay = backoff * (1 << min(state.attempt - 1, 20))
      return .run(name: "backoff") { [clock] send in
        try await clock.sleep(for: delay)
        send(.autoRetry)
      }
      .cancellable(id: Self.backoffID, policy: .latest)
    }
  }

  private func fetchEffect() -> Effect<ProfileAction> {
    .run(name: "fetch") { [fetch] send in
      let profile = try await fetch { send(.output($0)) }
      send(.loadResponse(.success(profile)))
    } catch: { error, send in
      let message = (error as? LoadFailure)?.message ?? "\(error)"
      send(.loadResponse(.failure(LoadFailure(message))))
    }
    .cancellable(id: Self.fetchID, policy: .latest)
  }
}
