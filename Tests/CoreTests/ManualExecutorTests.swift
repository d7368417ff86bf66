import LoadctlCore
import Testing

@Suite struct ManualExecutorTests {
  @Test func jobsRunOnlyWhenDrained() {
    let executor = ManualExecutor()
    let ran = Recorder<String>()
    #expect(executor.drain() == 0)
    _ = Task(executorPreference: executor) { ran.append("ran") }
    #expect(ran.values == [])
    #expect(executor.drain() == 1)
    #expect(ran.values == ["ran"])
    #expect(executor.drain() == 0)
  }

  @Test func drainRunsJobsInFIFOOrderIncludingJobsEnqueuedWhileDraining() {
    let executor = ManualExecutor()
    let ran = Recorder<String>()
    for name in ["a", "b", "c"] {
      _ = Task(executorPreference: executor) {
        ran.append("\(name) starts")
        // The child's job and then the parent's resumption join the back of the queue.
        await withTaskGroup(of: Void.self) { group in
          group.addTask { ran.append("\(name)'s child") }
        }
        ran.append("\(name) ends")
      }
    }
    #expect(executor.drain() == 9)
    #expect(
      ran.values == [
        "a starts", "b starts", "c starts",
        "a's child", "b's child", "c's child",
        "a ends", "b ends", "c ends",
      ])
    #expect(executor.drain() == 0)
  }

  @Test func aContinuationResumedOutsideADrainWaitsForTheNextOne() {
    let executor = ManualExecutor()
    let ran = Recorder<String>()
    let (stream, input) = AsyncStream<Int>.makeStream()
    _ = Task(executorPreference: executor) {
      for await value in stream { ran.append("got \(value)") }
      ran.append("done")
    }
    executor.drain()
    input.yield(1)
    #expect(ran.values == [])
    #expect(executor.drain() == 1)
    #expect(ran.values == ["got 1"])
    input.yield(2)
    input.finish()
    executor.drain()
    #expect(ran.values == ["got 1", "got 2", "done"])
  }
}
