import Dispatch
import LoadctlCore

/// A bounded hand-over of lines from a reader thread to one async consumer.
///
/// ``LineSource``'s reader runs on a dispatch thread (a blocking `read` must not hold one of the
/// cooperative threads). The reader blocks (on its own thread, with a semaphore of free slots)
/// until the consumer has room, so no line is ever dropped: the writer of the pipe is slowed down,
/// as with any Unix reader, and no line is lost. The consumer parks on a continuation when no
/// line is ready, so a line is still delivered the moment it is read.
///
/// The semaphore starts at 0 and is signalled exactly once for each time the reader waits on it
/// (the reader records that it waits, under the lock): libdispatch traps when a semaphore is
/// destroyed with a value below its initial one, so it must not count free slots.
final class LineChannel: Sendable {
  /// The lines waiting for the consumer, and who waits for whom.
  private struct State {
    var lines: [RawLine] = []
    var head = 0
    var finished = false
    var stopped = false
    var readerWaits = false
    var consumer: CheckedContinuation<RawLine?, Never>?

    var count: Int { lines.count - head }

    /// Lets a reader waiting for room go on; `true` when it must be signalled.
    mutating func releaseReader() -> Bool {
      defer { readerWaits = false }
      return readerWaits
    }

    mutating func pop() -> RawLine? {
      guard head < lines.count else { return nil }
      let line = lines[head]
      head += 1
      if head == lines.count {
        lines.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 1024, head * 2 >= lines.count {
        // A reader that stays ahead never lets the queue empty: drop what was consumed, or
        // the array would keep every line ever read (amortised O(1) per line).
        lines.removeFirst(head)
        head = 0
      }
      return line
    }
  }

  private let state = Locked(State())
  private let capacity: Int
  /// Where the reader waits for room.
  private let room = DispatchSemaphore(value: 0)

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Lines held in memory, consumed ones not yet dropped included: for tests of the bound.
  var storedLines: Int { state.withLock { $0.lines.count } }

  /// Whether the consumer has gone; the reader should stop.
  var isStopped: Bool { state.withLock { $0.stopped } }

  /// Reader thread: hands `line` over, first waiting while `capacity` lines are waiting.
  /// - Returns: `false` once the consumer has gone.
  func push(_ line: RawLine) -> Bool {
    while true {
      let (accepted, consumer) = state.withLock {
        state -> (Bool?, CheckedContinuation<RawLine?, Never>?) in
        guard !state.stopped else { return (false, nil) }
        if let consumer = state.consumer {
          state.consumer = nil
          return (true, consumer)
        }
        guard state.count < capacity else {
          state.readerWaits = true
          return (nil, nil)
        }
        state.lines.append(line)
        return (true, nil)
      }
      consumer?.resume(returning: line)
      if let accepted { return accepted }
      room.wait()
    }
  }

  /// Reader thread: no more lines; the consumer gets `nil` after the buffered ones.
  func finish() {
    let consumer = state.withLock { state in
      state.finished = true
      defer { state.consumer = nil }
      return state.consumer
    }
    consumer?.resume(returning: nil)
  }

  /// Consumer: it has gone (cancelled or done); unblocks a reader waiting for room.
  func stop() {
    let (consumer, releaseReader) = state.withLock { state in
      state.stopped = true
      defer { state.consumer = nil }
      return (state.consumer, state.releaseReader())
    }
    consumer?.resume(returning: nil)
    if releaseReader { room.signal() }
  }

  /// Consumer: the next line if one is waiting, without waiting for one.
  func nextReady() -> RawLine? {
    let (line, releaseReader) = state.withLock { state -> (RawLine?, Bool) in
      guard let line = state.pop() else { return (nil, false) }
      return (line, state.releaseReader())
    }
    if releaseReader { room.signal() }
    return line
  }

  /// Consumer: the next line, waiting for it if none is ready; `nil` at the end or once stopped.
  func next() async -> RawLine? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<RawLine?, Never>) in
        let (ready, releaseReader) = state.withLock { state -> (RawLine??, Bool) in
          if let line = state.pop() { return (.some(line), state.releaseReader()) }
          if state.finished || state.stopped || Task.isCancelled { return (.some(nil), false) }
          state.consumer = continuation
          return (nil, false)
        }
        if releaseReader { room.signal() }
        guard let ready else { return }
        continuation.resume(returning: ready)
      }
    } onCancel: {
      stop()
    }
  }
}
