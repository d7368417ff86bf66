import Synchronization

/// The run loop's inbox: messages from the input pump and from effects, for one consumer.
///
/// The loop takes everything waiting in one swap and parks only when nothing is. Effects send
/// without waiting; the input pump sends one input and waits until the loop has applied it
/// (``inputHandled()``) before it reads the next, so a fast input runs at the loop's pace.
@usableFromInline final class StoreMailbox<Message: Sendable>: Sendable {
  @usableFromInline struct Buffer {
    @usableFromInline var messages: [Message] = []
    /// The run loop, parked until a message arrives, the mailbox closes or it is cancelled.
    @usableFromInline var consumer: UnsafeContinuation<Void, Never>?
    /// The input pump, parked until there is room, the mailbox closes or it is cancelled.
    @usableFromInline var producer: UnsafeContinuation<Void, Never>?
    @usableFromInline var closed = false
    /// An input was sent and the loop has not applied it yet.
    @usableFromInline var inputPending = false

    @inlinable init() {}
  }

  @usableFromInline let buffer = Locked(Buffer())
  @usableFromInline let cancelled = Atomic(false)

  @inlinable init() {}

  /// Effects: adds `message`, never waiting; dropped once the mailbox is closed.
  @inlinable func send(_ message: Message) {
    buffer.withLock { buffer -> UnsafeContinuation<Void, Never>? in
      guard !buffer.closed else { return nil }
      buffer.messages.append(message)
      return buffer.consumer.take()
    }?.resume()
  }

  /// The input pump: adds `message` and waits until the loop has applied it; the pump calls it
  /// inside ``pumping(_:)``, which wakes it when its task is cancelled.
  /// - Returns: `false` when the mailbox closed or the pump was cancelled first (`message` may
  ///   not have been applied: the run is ending).
  @inlinable nonisolated(nonsending) func sendInput(_ message: Message) async -> Bool {
    buffer.withLock { buffer -> UnsafeContinuation<Void, Never>? in
      guard !buffer.closed else { return nil }
      buffer.inputPending = true  // before the loop can see `message`
      buffer.messages.append(message)
      return buffer.consumer.take()
    }?.resume()
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumeNow = buffer.withLock { buffer -> Bool in
        guard buffer.inputPending, !buffer.closed, !Task.isCancelled else { return true }
        buffer.producer = continuation
        return false
      }
      if resumeNow { continuation.resume() }
    }
    return buffer.withLock { !$0.closed && !$0.inputPending } && !Task.isCancelled
  }

  /// Runs the input pump, waking a ``sendInput(_:)`` that waits when the pump is cancelled.
  @inlinable nonisolated(nonsending) func pumping(_ body: nonisolated(nonsending) () async -> Void)
    async
  {
    await withTaskCancellationHandler(operation: body) {
      buffer.withLock { $0.producer.take() }?.resume()
    }
  }

  /// The run loop has applied the input the pump sent: lets the pump read the next one.
  @inlinable func inputHandled() {
    buffer.withLock { buffer -> UnsafeContinuation<Void, Never>? in
      buffer.inputPending = false
      return buffer.producer.take()
    }?.resume()
  }

  /// Whether a message waits for the loop.
  @inlinable var hasMessages: Bool { buffer.withLock { !$0.messages.isEmpty } }

  /// Whether the run was cancelled (set by ``cancel()``, from the run's cancellation handler, a
  /// moment after the task's own flag); cheap enough to ask for every action.
  @inlinable var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// The run was cancelled: wakes the loop if it waits for messages.
  @inlinable func cancel() {
    cancelled.store(true, ordering: .releasing)
    buffer.withLock { $0.consumer.take() }?.resume()
  }

  /// The run loop: swaps everything waiting into the empty `batch`, first waiting for at least
  /// one message unless the mailbox is closed or the run cancelled (then `batch` may stay
  /// empty; the caller checks ``isCancelled``).
  @inlinable nonisolated(nonsending) func receive(into batch: inout [Message]) async {
    if take(into: &batch) { return }
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let resumeNow = buffer.withLock { buffer -> Bool in
        // Under the lock: a `cancel()` before parking found nothing to resume but set the flag.
        guard buffer.messages.isEmpty, !buffer.closed, !isCancelled else { return true }
        buffer.consumer = continuation
        return false
      }
      if resumeNow { continuation.resume() }
    }
    _ = take(into: &batch)
  }

  /// Ends the mailbox: later messages are dropped and whoever waits is woken.
  @inlinable func close() {
    let (consumer, producer) = buffer.withLock { buffer in
      buffer.closed = true
      buffer.messages.removeAll()
      return (buffer.consumer.take(), buffer.producer.take())
    }
    consumer?.resume()
    producer?.resume()
  }

  /// Swaps the waiting messages into `batch` if there are any.
  @inlinable func take(into batch: inout [Message]) -> Bool {
    buffer.withLock { buffer in
      guard !buffer.messages.isEmpty else { return false }
      swap(&buffer.messages, &batch)
      return true
    }
  }
}
