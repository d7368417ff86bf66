#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens a file loadctl writes that may hold what a run saw (a recording, a trace: command
/// lines, queries, a command's output) so that only its owner can read it.
///
/// A new file is made `0600`. An existing regular file that this user owns is truncated and
/// made `0600` too: `O_CREAT`'s mode applies only to a file it creates, so a recording written
/// over an old `0644` file would otherwise stay readable by everyone. Anything else (a FIFO,
/// `/dev/null`, another user's file) keeps its mode.
package enum PrivateFile {
  /// `open(path, flags | O_CREAT, 0600)`, then the mode tightened as described above.
  /// - Returns: The descriptor, or -1 with `errno` set.
  package static func open(_ path: String, flags: Int32) -> Int32 {
    #if canImport(Glibc)
      let fd = Glibc.open(path, flags | O_CREAT, 0o600)
    #else
      let fd = Darwin.open(path, flags | O_CREAT, 0o600)
    #endif
    guard fd >= 0 else { return fd }
    var info = stat()
    if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
      info.st_mode & 0o077 != 0
    {
      _ = fchmod(fd, 0o600)
    }
    return fd
  }
}
