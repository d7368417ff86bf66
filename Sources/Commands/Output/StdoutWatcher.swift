import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Notices that the reader of stdout went away while nothing is being written.
///
/// A write to a pipe with no reader fails with EPIPE, which ``OutputWriter`` reports; a run that
/// prints nothing for a while (a slow command, a long debounce) would only notice at its next
/// line. On a pipe or socket, this watches the descriptor on a thread of its own (`poll` reports
/// POLLERR or POLLHUP once the other end is closed) and calls `closed` once, at once. Terminals
/// and files are not watched.
final class StdoutWatcher: Sendable {
  private let wake: (read: Int32, write: Int32)

  private init(wake: (read: Int32, write: Int32)) {
    self.wake = wake
  }

  /// Starts watching `fd`; `nil` when it is not a pipe or a socket, or no thread can be made.
  static func start(fd: Int32, closed: @escaping @Sendable () -> Void) -> StdoutWatcher? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    let type = info.st_mode & S_IFMT
    guard type == S_IFIFO || type == S_IFSOCK else { return nil }
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let wake = (read: ends[0], write: ends[1])
    let watcher = StdoutWatcher(wake: wake)
    let started = ReaderThread.start(stackSize: 64 * 1024) {
      var fds = [
        pollfd(fd: fd, events: 0, revents: 0),
        pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
      ]
      while true {
        let ready = poll(&fds, 2, -1)
        if ready < 0, errno == EINTR { continue }
        if fds[1].revents != 0 || ready < 0 || fds[0].revents & Int16(POLLNVAL) != 0 { break }
        if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 {
          closed()
          break
        }
      }
      close(wake.read)
    }
    guard started else {
      close(wake.read)
      close(wake.write)
      return nil
    }
    return watcher
  }

  /// Stops watching; the thread ends at once. Call once.
  func stop() {
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
    close(wake.write)
  }
}
