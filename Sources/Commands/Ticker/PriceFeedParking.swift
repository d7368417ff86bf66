/// Who waits for whom between a price feed's producer and its consumer.
///
/// The state machine behind ``PriceFeedGauge``: each event mutates the state under the gauge's
/// lock and returns the continuations to resume, which the gauge resumes after unlocking. Keeping
/// the decisions here, free of locks and atomics, makes every wait and wake-up explicit.
struct PriceFeedParking {
  typealias Waiter = CheckedContinuation<Void, Never>

  /// Which side is parked.
  enum Role {
    case producer
    case consumer
  }

  /// What the producer is doing.
  enum Producer {
    case running
    /// A line source with a full window, waiting until half of it has been taken.
    case waitingForRoom(Waiter)
    /// The unpaced feed after a batch, waiting until the consumer has taken all of it.
    case waitingForDrain(Waiter)
    case stopped
  }

  /// What the consumer is doing, as far as pacing is concerned.
  enum Consumer {
    case running
    /// Drained, waiting for the producer's next batch to be complete.
    case waitingForBatch(Waiter)
  }

  private(set) var producer = Producer.running
  private(set) var consumer = Consumer.running
  /// Whether the producer works in batches (it has called ``parkForDrain(_:inFlight:)``).
  private(set) var batched = false

  /// The producer's window is full: park until the count is at most `lowWater`.
  mutating func parkForRoom(_ waiter: Waiter, inFlight: Int, lowWater: Int) -> [Waiter] {
    guard inFlight > lowWater else { return [waiter] }
    producer = .waitingForRoom(waiter)
    return []
  }

  /// The producer's batch is complete: release a consumer waiting for it, and park until the
  /// consumer has drained everything.
  mutating func parkForDrain(_ waiter: Waiter, inFlight: Int) -> [Waiter] {
    batched = true
    var wake: [Waiter] = []
    if case .waitingForBatch(let consumerWaiter) = consumer {
      consumer = .running
      wake.append(consumerWaiter)
    }
    if inFlight == 0 {
      wake.append(waiter)
    } else {
      producer = .waitingForDrain(waiter)
    }
    return wake
  }

  /// The consumer lowered the count to `left`: wake a producer waiting for room.
  ///
  /// A producer waiting for the drain is not woken here but by ``releaseForNextBatch()`` or
  /// ``awaitBatch(_:inFlight:)``, when the consumer knows it wants more.
  mutating func consumerReached(_ left: Int, lowWater: Int) -> [Waiter] {
    guard case .waitingForRoom(let waiter) = producer, left <= lowWater else { return [] }
    producer = .running
    return [waiter]
  }

  /// The consumer has taken a whole batch and will want the next one: wake the producer if it
  /// waits for that, so it makes the next batch while the consumer shows this one.
  mutating func releaseForNextBatch() -> [Waiter] {
    guard case .waitingForDrain(let producerWaiter) = producer else { return [] }
    producer = .running
    return [producerWaiter]
  }

  /// The consumer has nothing left to show and wants the next value, with `inFlight` values in
  /// the stream: a batched producer's batch is taken only once it is complete, so that the
  /// consumer never reads while the producer yields (they would contend for the stream's lock).
  ///
  /// - The producer waits for the drain with values in flight: its batch is complete, go on.
  /// - It waits for the drain with none (nobody released it): wake it, and wait for its batch.
  /// - A batched producer is making its batch: wait for it.
  /// - Otherwise (a live source, or a stopped one) go on at once.
  mutating func awaitBatch(_ waiter: Waiter, inFlight: Int) -> [Waiter] {
    switch producer {
    case .waitingForDrain where inFlight > 0:
      return [waiter]
    case .waitingForDrain(let producerWaiter):
      producer = .running
      consumer = .waitingForBatch(waiter)
      return [producerWaiter]
    case .running where batched:
      consumer = .waitingForBatch(waiter)
      return []
    default:
      return [waiter]
    }
  }

  /// The producer has returned: a consumer waiting for its batch must not wait any longer.
  mutating func producerStopped() -> [Waiter] {
    producer = .stopped
    guard case .waitingForBatch(let waiter) = consumer else { return [] }
    consumer = .running
    return [waiter]
  }

  /// `role`'s task was cancelled: resume it if it is parked.
  mutating func cancel(_ role: Role) -> [Waiter] {
    switch (role, producer, consumer) {
    case (.producer, .waitingForRoom(let waiter), _), (.producer, .waitingForDrain(let waiter), _):
      producer = .running
      return [waiter]
    case (.consumer, _, .waitingForBatch(let waiter)):
      consumer = .running
      return [waiter]
    default:
      return []
    }
  }
}
