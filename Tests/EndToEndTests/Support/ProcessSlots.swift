import Foundation
import Testing

/// Bounds how many end-to-end test cases run at once.
///
/// Swift Testing starts every test case in parallel, and each end-to-end case runs real
/// processes (loadctl, its children, shells, a python validator); unbounded, they starve each
/// other and the test process past the harness's failsafes on a small machine. Through this
/// trait a case first takes one of a few slots; waiting for a slot is not part of any timeout.
/// `LOADCTL_E2E_PARALLEL` sets the number of slots (default: three per core, at least four).
struct ProcessSlots: SuiteTrait, TestTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A suite and a parameterized test are scopes too; only a case runs processes.
    guard testCase != nil else { return try await function() }
    await Self.gate.acquire()
    defer { Self.gate.release() }
    try await function()
  }

  static let width: Int = {
    let variable = ProcessInfo.processInfo.environment["LOADCTL_E2E_PARALLEL"]
    return variable.flatMap(Int.init).map { max($0, 1) }
      ?? max(4, 3 * ProcessInfo.processInfo.activeProcessorCount)
  }()

  private static let gate = Gate(width: width)

  /// A counting semaphore for tasks: `acquire` suspends (never blocks a thread) while all slots
  /// are taken, and waiters are served in arrival order.
  private final class Gate: Sendable {
    private struct State {
      var free: Int
      var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Locked<State>

    init(width: Int) { state = Locked(State(free: width)) }

    func acquire() async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let granted = state.withLock { state in
          guard state.free > 0 else {
            state.waiters.append(continuation)
            return false
          }
          state.free -= 1
          return true
        }
        if granted { continuation.resume() }
      }
    }

    func release() {
      let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard !state.waiters.isEmpty else {
          state.free += 1
          return nil
        }
        return state.waiters.removeFirst()
      }
      next?.resume()
    }
  }
}

extension Trait where Self == ProcessSlots {
  /// Runs each case of the suite or test in one of a few slots (see ``ProcessSlots``).
  static var processSlots: Self { ProcessSlots() }
}
