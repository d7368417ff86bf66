#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a blocking loop (a `read` or `sigwait`) on a thread of its own.
///
/// Blocking calls must stay off the cooperative pool and off dispatch's worker pool too:
/// libdispatch on Linux cannot see that a worker is blocked in `read`, so blocked readers can
/// starve other work. A plain detached thread per reader never competes with async work.
package enum ReaderThread {
  /// Starts `body` on a new detached thread with a stack of `stackSize` bytes; it ends when
  /// `body` returns.
  ///
  /// - Returns: Whether the thread was made; if not, `body` never runs and the caller must end
  ///   whatever waits for it.
  @discardableResult
  package static func start(stackSize: Int = 256 * 1024, _ body: @escaping @Sendable () -> Void)
    -> Bool
  {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, stackSize)
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t?
    #endif
    let result = pthread_create(
      &thread, &attributes,
      { raw in
        guard let raw else { return nil }
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        box.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    if result != 0 { Unmanaged<Box>.fromOpaque(box).release() }
    return result == 0
  }

  private final class Box: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
}
