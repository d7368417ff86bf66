import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Wakes an ``HTTPExchange`` blocked in `poll` from another thread: a pipe it also polls.
///
/// A cancellation handler runs on whatever thread cancels the task, possibly after the exchange
/// has finished; the lock and the `closed` flag make sure it never writes to a descriptor that
/// was closed (and perhaps reused by then).
final class HTTPInterrupt: Sendable {
  /// The end the exchange polls; valid until ``release()``.
  let readDescriptor: Int32
  private let writer: Locked<Int32?>

  /// A new pipe, or `nil` when the process is out of descriptors.
  init?() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    readDescriptor = ends[0]
    writer = Locked(ends[1])
  }

  /// Makes the exchange's next (or current) wait end with `cancelled`.
  func fire() {
    writer.withLock { descriptor in
      guard let descriptor else { return }
      var byte: UInt8 = 1
      _ = write(descriptor, &byte, 1)
    }
  }

  /// Closes both ends; called once, by the exchange's thread, when it is done.
  func release() {
    writer.withLock { descriptor in
      guard let open = descriptor else { return }
      _ = close(open)
      _ = close(readDescriptor)
      descriptor = nil
    }
  }
}
