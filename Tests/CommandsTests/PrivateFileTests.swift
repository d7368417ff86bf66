import Foundation
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files that may hold what a run saw are the owner's only; what is not a regular file keeps
/// its mode.
@Suite struct PrivateFileTests {
  private func mode(_ path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
  }

  @Test func aNewFileAndAnOldOneAreMade0600() throws {
    let directory = NSTemporaryDirectory() + "loadctl-private-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (fresh, old) = (directory + "/fresh", directory + "/old")
    try #require(FileManager.default.createFile(atPath: old, contents: Data("x".utf8)))
    #expect(chmod(old, 0o644) == 0)
    for path in [fresh, old] {
      let fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC | O_CLOEXEC)
      try #require(fd >= 0)
      close(fd)
      #expect(mode(path) == 0o600, "\(path)")
    }
  }

  @Test func aFIFOKeepsItsMode() throws {
    let path = NSTemporaryDirectory() + "loadctl-private-" + UUID().uuidString
    #expect(mkfifo(path, 0o644) == 0)
    defer { unlink(path) }
    // Read and write, so that opening does not wait for a reader.
    let fd = PrivateFile.open(path, flags: O_RDWR | O_CLOEXEC)
    try #require(fd >= 0)
    close(fd)
    #expect(mode(path) == 0o644)
  }
}
