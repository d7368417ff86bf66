import LoadctlCore
import Synchronization

/// A one-shot signal from a price stream's `onTermination` to the task that stops its producer,
/// and the consumer's cancellation, as a flag its reader checks.
///
/// `onTermination` is a synchronous callback on whichever thread ended the stream; it cannot
/// cancel a child task of a group. So it only fires this, and a watcher task beside the producer
/// waits here and then cancels the producer's group (see ``PriceFeed``).
final class PriceFeedTermination: Sendable {
  /// Whether the stream has terminated, and who waits for it.
  private struct State {
    var fired = false
    var watcher: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())
  private let cancelled = Atomic<Bool>(false)

  /// Whether the stream has terminated.
  var hasFired: Bool { state.withLock { $0.fired } }

  /// Whether the consumer's task has been cancelled: an atomic load, cheap enough for the
  /// consumer to check before every value (see ``PriceFeedReader/next()``).
  var consumerWasCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Records that the consumer's task was cancelled (from its cancellation handler).
  func consumerCancelled() {
    cancelled.store(true, ordering: .releasing)
  }

  /// Records the termination and wakes the watcher; later calls do nothing.
  func fire() {
    let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.fired else { return nil }
      state.fired = true
      defer { state.watcher = nil }
      return state.watcher
    }
    watcher?.resume()
  }

  /// Returns once the stream has terminated, or when the waiting task is cancelled.
  func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ready = state.withLock { state -> Bool in
          if state.fired || Task.isCancelled { return true }
          state.watcher = continuation
          return false
        }
        if ready { continuation.resume() }
      }
    } onCancel: {
      let watcher = state.withLock { state in
        defer { state.watcher = nil }
        return state.watcher
      }
      watcher?.resume()
    }
  }
}
