import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts a child with `posix_spawn`, wiring its standard descriptors exactly.
///
/// Foundation's `Process` can neither put a child in a process group of its own, nor reset the
/// signal dispositions it inherits from the test runner, nor hand one child's pipe to another
/// child without the test process keeping a copy open. The harness needs all three: the
/// leftover-process check, SIGPIPE tests, and pipelines such as `loadctl … | head -n 3`.
enum Spawner {
  /// Where one of the child's descriptors 0, 1 or 2 comes from.
  enum Source: Sendable {
    /// A descriptor of the test process, duplicated into the child.
    case descriptor(Int32)
    /// A file the child opens: for reading, or truncated for writing.
    case file(String, forWriting: Bool)
  }

  /// Everything `spawn` needs to start one child.
  struct Request: Sendable {
    /// An absolute path, or a name looked up in the child's `PATH`.
    var executable: String
    var arguments: [String]
    var environment: [String: String]
    var stdin: Source
    var stdout: Source
    var stderr: Source
    /// 0 makes the child the leader of a new process group; otherwise the group to join.
    var processGroup: Int32 = 0
  }

  /// The test process must survive writing to a pipe whose reader died; children get the
  /// default disposition back through `POSIX_SPAWN_SETSIGDEF`.
  private static let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
  }()

  /// Starts the child.
  ///
  /// - Returns: The child's pid, which is also its process group id unless it joined a group.
  /// - Throws: `HarnessError` when the executable is missing or `posix_spawn` fails.
  static func spawn(_ request: Request) throws(HarnessError) -> Int32 {
    _ = ignoreBrokenPipes
    let searchPath =
      request.environment["PATH"] ?? getenv("PATH").map { String(cString: $0) } ?? ""
    guard let path = resolve(request.executable, searchPath: searchPath) else {
      throw .spawnFailed(request.executable, errno: ENOENT)
    }
    #if canImport(Darwin)
      var actions: posix_spawn_file_actions_t? = nil
      var attributes: posix_spawnattr_t? = nil
    #else
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }

    for (source, target) in [(request.stdin, 0), (request.stdout, 1), (request.stderr, 2)] {
      switch source {
      case .descriptor(let descriptor):
        posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
      case .file(let file, let forWriting):
        let flags = forWriting ? (O_WRONLY | O_CREAT | O_TRUNC) : O_RDONLY
        posix_spawn_file_actions_addopen(&actions, Int32(target), file, flags, 0o644)
      }
    }
    var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP)
    #if canImport(Darwin)
      flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
    #else
      // Descriptors that other code in the test process opened without O_CLOEXEC would keep a
      // pipe open in loadctl and hide an EOF; close everything above stderr.
      addCloseFrom(&actions, 3)
    #endif
    posix_spawnattr_setflags(&attributes, Int16(flags))
    posix_spawnattr_setpgroup(&attributes, request.processGroup)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
      sigaddset(&defaults, Int32(signal))
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)

    let argv = ([path] + request.arguments).map { strdup($0) } + [nil]
    let envp = request.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: Int32 = 0
    descriptorLock.lock()
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    descriptorLock.unlock()
    guard result == 0 else { throw .spawnFailed(path, errno: result) }
    return pid
  }

  /// Held while a pipe's ends are not yet close-on-exec and while spawning, so that no child of
  /// the harness inherits another test's pipe (Swift's Glibc module does not export `pipe2`).
  private static let descriptorLock = NSLock()

  #if os(Linux)
    /// Closes every descriptor from `lowest` up in the child.
    ///
    /// glibc 2.34+ has `posix_spawn_file_actions_addclosefrom_np`, but Swift's Glibc module
    /// hides it behind `_GNU_SOURCE`, so it is looked up at run time and skipped if absent.
    private static func addCloseFrom(
      _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32
    ) {
      typealias Function =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
      guard let program = dlopen(nil, RTLD_NOW),
        let symbol = dlsym(program, "posix_spawn_file_actions_addclosefrom_np")
      else { return }
      _ = unsafeBitCast(symbol, to: Function.self)(actions, lowest)
    }
  #endif

  /// A pipe whose ends are close-on-exec and above the standard descriptors, so that a test
  /// process started with fd 0 closed cannot confuse the child's wiring.
  static func makePipe() throws(HarnessError) -> (read: Int32, write: Int32) {
    descriptorLock.lock()
    defer { descriptorLock.unlock() }
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw .ioFailed("pipe", errno: errno) }
    var result: [Int32] = []
    for descriptor in descriptors {
      // The copy is close-on-exec and numbered 3 or above.
      let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
      let failure = errno
      close(descriptor)
      guard moved >= 0 else {
        result.forEach { close($0) }
        throw .ioFailed("fcntl(F_DUPFD_CLOEXEC)", errno: failure)
      }
      result.append(moved)
    }
    return (result[0], result[1])
  }

  /// The test process's environment with `adding` set and `removing` unset.
  static func environment(
    adding: [String: String], removing: [String], base: [String: String]
  ) -> [String: String] {
    var environment = base
    for key in removing { environment[key] = nil }
    environment.merge(adding) { _, new in new }
    return environment
  }

  /// A path containing `/` as it is, else the first executable `name` in `searchPath`.
  static func resolve(_ name: String, searchPath: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    for directory in searchPath.split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }
}
