import LoadctlCore
import Synchronization

/// Counts the values between a feed's producer and its consumer, and paces producers that can
/// wait for the consumer.
///
/// `AsyncStream` has no back-pressure and cannot say whether a value is ready, yet the consumer
/// must flush its output exactly when it has caught up (so a pipe sees each tick when it happens
/// without a flush per line at full speed), and a producer that can wait must not outrun it (or
/// it would drop values, and `--seed` would stop being reproducible). Both need the number of
/// values in flight, kept here in an atomic: a producer adds one before each yield and takes it
/// back if the stream refused the value; the consumer takes one for each value it receives.
///
/// Two ways to wait, because the stream's lock is the bottleneck at full speed: a producer that
/// yields while the consumer calls `next()` makes both sleep in the kernel on that lock (half the
/// time went to `futex` in a profile). So the unpaced random feed works in batches
/// (``waitForDrain()``): it fills ``window`` values, then waits until the consumer has taken
/// them all. The consumer takes a complete batch in one go, lets the producer start the next
/// one (``releaseForNextBatch()``) and shows its values while the next batch is made; once they
/// are shown it waits for that batch to be complete (``awaitBatch()``) instead of racing it. So
/// the two never touch the stream at the same time, yet run side by side. A line source must not hold lines back (a `+1s` line in a file
/// is shown on time), so it only waits while the window is full, until half has been taken
/// (``waitForRoom()``). The parking state is ``PriceFeedParking``.
package final class PriceFeedGauge: Sendable {
  /// The most values a waiting producer keeps in flight.
  package let window: Int
  private let inFlight = Atomic<Int>(0)
  private let producedCount = Atomic<Int>(0)
  private let droppedCount = Atomic<Int>(0)
  private let batched = Atomic<Bool>(false)
  private let parking = Locked(PriceFeedParking())

  /// The most values the consumer will take (`--count`); `nil` for no limit.
  package let limit: Int?

  /// - Parameters:
  ///   - window: See ``TickerBuffer/window``; at least 1.
  ///   - limit: The most values the consumer will take, if it knows.
  package init(window: Int, limit: Int? = nil) {
    precondition(window >= 1, "a feed needs room for at least one value")
    self.window = window
    self.limit = limit
  }

  /// How many values an unpaced producer makes in its next batch: a window, but never more
  /// than the consumer will still take, so `produced` is the same on every run (with
  /// `--count 3`, 3) whatever the two sides' timing.
  package var nextBatchSize: Int {
    guard let limit else { return window }
    return max(0, min(window, limit - produced))
  }

  /// Values the producer offered to the stream, dropped ones included.
  package var produced: Int { producedCount.load(ordering: .relaxed) }
  /// Values the stream's buffer policy discarded.
  package var dropped: Int { droppedCount.load(ordering: .relaxed) }
  private var current: Int { inFlight.load(ordering: .sequentiallyConsistent) }

  // MARK: Producer side

  /// Counts a value about to be yielded.
  func willYield() {
    producedCount.add(1, ordering: .relaxed)
    inFlight.add(1, ordering: .sequentiallyConsistent)
  }

  /// The stream discarded a value (the new one or an old one): one fewer in flight.
  func didDrop() {
    droppedCount.add(1, ordering: .relaxed)
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// The stream had ended and refused the value.
  func didRefuse() {
    inFlight.subtract(1, ordering: .sequentiallyConsistent)
  }

  /// Line sources: returns at once while the window has room; when it is full, waits until the
  /// consumer has taken half of it.
  /// - Returns: `false` when the producer's task was cancelled.
  func waitForRoom() async -> Bool {
    if current < window { return !Task.isCancelled }
    await park(.producer) { $0.parkForRoom($1, inFlight: current, lowWater: window / 2) }
    return !Task.isCancelled
  }

  /// The unpaced feed: ends the current batch (waking a consumer that waits for it) and waits
  /// until the consumer has taken every value.
  /// - Returns: `false` when the producer's task was cancelled.
  func waitForDrain() async -> Bool {
    batched.store(true, ordering: .relaxed)
    await park(.producer) { $0.parkForDrain($1, inFlight: current) }
    return !Task.isCancelled
  }

  /// The producer has stopped: nobody may wait for its next batch.
  func producerStopped() {
    for waiter in parking.withLock({ $0.producerStopped() }) { waiter.resume() }
  }

  // MARK: Consumer side

  /// Counts a value the consumer took from the stream.
  ///
  /// - Returns: How many values are still in flight; 0 means the consumer has caught up: it
  ///   should flush, then ``awaitBatch()``, before it waits for the next value.
  func received() -> Int {
    let left = inFlight.subtract(1, ordering: .sequentiallyConsistent).newValue
    // Only the consumer lowers the count while a producer is parked, so it passes each
    // threshold exactly once on the way down: one lock per wake-up, not per value.
    if left == window / 2 || left == 0 {
      let wake = parking.withLock { $0.consumerReached(left, lowWater: window / 2) }
      for waiter in wake { waiter.resume() }
    }
    return max(left, 0)
  }

  /// Whether the producer works in batches (the unpaced feed): the consumer may then take a
  /// whole batch at once (see ``PriceFeedReader``).
  var isBatched: Bool { batched.load(ordering: .relaxed) }

  /// The consumer has taken a whole batch and will want more: an unpaced producer waiting for
  /// the drain starts its next batch now.
  func releaseForNextBatch() {
    for waiter in parking.withLock({ $0.releaseForNextBatch() }) { waiter.resume() }
  }

  /// Before the consumer takes its next value: returns when a batched producer's batch is
  /// complete (waking the producer first if it is waiting for the drain), or when it stopped;
  /// at once for any other source.
  func awaitBatch() async {
    await park(.consumer) { $0.awaitBatch($1, inFlight: current) }
  }

  /// Parks the calling task (`role`) with the state machine's `step`, which returns whom to
  /// resume (possibly the caller itself); cancellation resumes it.
  private func park(
    _ role: PriceFeedParking.Role,
    _ step: (inout PriceFeedParking, PriceFeedParking.Waiter) -> [PriceFeedParking.Waiter]
  ) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: PriceFeedParking.Waiter) in
        // Checked under the lock the cancellation handler takes: either the handler runs later
        // and finds the parked continuation, or the task is already seen as cancelled here.
        let wake = parking.withLock { parking in
          Task.isCancelled ? [continuation] : step(&parking, continuation)
        }
        for waiter in wake { waiter.resume() }
      }
    } onCancel: {
      for waiter in parking.withLock({ $0.cancel(role) }) { waiter.resume() }
    }
  }
}
