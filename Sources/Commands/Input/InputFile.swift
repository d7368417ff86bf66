#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens the file behind an `--input`/`--from` style option, with one clear error when it can't.
package enum InputFile {
  /// Why a file could not be used.
  package struct Failure: Error, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { message }
  }

  /// Opens `path` for reading (`-` is stdin) and rejects directories.
  ///
  /// Standard input gets the same check: `< some-directory` or a closed stdin would otherwise
  /// fail on the first `read`, which line readers take for the end of the input.
  /// - Returns: The descriptor and whether the caller must close it.
  package static func open(_ path: String, option: String) throws(Failure) -> (Int32, Bool) {
    if path == "-" {
      var info = stat()
      guard fstat(0, &info) == 0 else {
        throw Failure(message: "cannot read '-' for \(option): \(describeErrno(errno))")
      }
      guard (info.st_mode & S_IFMT) != S_IFDIR else {
        throw Failure(message: "cannot read '-' for \(option): it is a directory")
      }
      return (0, false)
    }
    #if canImport(Glibc)
      let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    #else
      let fd = Darwin.open(path, O_RDONLY | O_CLOEXEC)
    #endif
    guard fd >= 0 else {
      throw Failure(message: "cannot open '\(path)' for \(option): \(describeErrno(errno))")
    }
    var info = stat()
    if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
      close(fd)
      throw Failure(message: "cannot read '\(path)' for \(option): it is a directory")
    }
    return (fd, true)
  }

  /// Reads a whole (small) file, for `--file` and `--corpus`.
  package static func readAll(_ path: String, option: String, limit: Int = 16 * 1024 * 1024)
    throws(Failure) -> [UInt8]
  {
    let (fd, owned) = try open(path, option: option)
    defer { if owned { close(fd) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(message: "cannot read '\(path)' for \(option): \(describeErrno(errno))")
      }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
      if bytes.count > limit {
        throw Failure(message: "'\(path)' for \(option) is larger than \(limit / 1024 / 1024) MiB")
      }
    }
  }

  /// `strerror` as a Swift string.
  package static func describeErrno(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
  }
}
