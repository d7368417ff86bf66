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

  /// The producer's window is full: park until the count is at most `lowWater`.
  mutating func parkForRoom(_ waiter: Waiter, inFlight: Int, lowWater: Int) -> [Waiter] {
    guard inFlight > lowWater else { return [waiter] }
    producer = .waitingForRoom(waiter)
    return []
  }

  /// The producer's batch is complete: release a consumer waiting for it, and park until the
  /// consumer has drained everything.
  mutating func parkForDrain(_ waiter: Waiter, inFlight: Int) -> [Waiter] {
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
  /// A producer waiting for the drain is not woken here but by ``awaitBatch(_:)``, after the
  /// consumer has flushed its output.
  mutating func consumerReached(_ left: Int, lowWater: Int) -> [Waiter] {
    guard case .waitingForRoom(let waiter) = producer, left <= lowWater else { return [] }
    producer = .running
    return [waiter]
  }

  /// The consumer has drained the stream: if the producer waits for that, wake it and wait for
  /// its next batch; otherwise go on at once.
  mutating func awaitBatch(_ waiter: Waiter) -> [Waiter] {
    guard case .waitingForDrain(let producerWaiter) = producer else { return [waiter] }
    producer = .running
    consumer = .waitingForBatch(waiter)
    return [producerWaiter]
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
