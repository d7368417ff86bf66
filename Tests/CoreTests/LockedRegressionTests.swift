import LoadctlCore
import Testing

/// `Locked` replaced `Synchronization.Mutex`, which ThreadSanitizer cannot see on Linux.
///
/// Under `swift test --sanitize=thread`, every `Mutex`-protected access that crossed threads was
/// reported as a race (OutputWriter's buffer, LineChannel's state). These tests pin the
/// replacement's contract; the TSan CI step pins that it is visible to the sanitizer.
@Suite struct LockedRegressionTests {
  @Test func concurrentUpdatesAreAllKept() async {
    let count = Locked(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<1000 { count.withLock { $0 += 1 } }
        }
      }
    }
    #expect(count.withLock { $0 } == 8000)
  }

  struct Refused: Error, Equatable {}

  @Test func aThrowingBodyLeavesTheValueUsableAndTheLockFree() {
    let value = Locked([1, 2])
    #expect(throws: Refused()) {
      try value.withLock { (numbers: inout [Int]) throws(Refused) in
        numbers.append(3)
        throw Refused()
      }
    }
    #expect(value.withLock { $0 } == [1, 2, 3])
  }
}
