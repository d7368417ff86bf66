/// Lets the store cancel one effect task inside its task group.
///
/// Task groups cannot cancel a single child, so each effect runs its work in an inner group and
/// waits on this handle; ``cancel()`` wakes it, and it cancels the inner group. The handle also
/// wakes when the work ends on its own, or when the whole run is cancelled.
final class EffectHandle: Sendable {
  private enum Phase {
    case running
    case waiting(CheckedContinuation<Void, Never>)
    case done
  }

  private let phase = Locked(Phase.running)

  /// Asks the effect to stop; harmless after it ended.
  func cancel() { settle() }

  /// Runs `work` until it returns or ``cancel()`` is called, whichever comes first.
  func run(_ work: @escaping @Sendable () async -> EffectOutcome) async -> EffectOutcome {
    await withTaskGroup(of: EffectOutcome.self) { group in
      group.addTask {
        let outcome = await work()
        self.settle()
        return outcome
      }
      await waitUntilSettled()
      group.cancelAll()
      return await group.next() ?? .cancelled
    }
  }

  private func waitUntilSettled() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow: Bool = phase.withLock { phase in
          guard case .running = phase else { return true }
          phase = .waiting(continuation)
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      settle()
    }
  }

  private func settle() {
    let continuation: CheckedContinuation<Void, Never>? = phase.withLock { phase in
      switch phase {
      case .running:
        phase = .done
        return nil
      case .waiting(let continuation):
        phase = .done
        return continuation
      case .done:
        return nil
      }
    }
    continuation?.resume()
  }
}
