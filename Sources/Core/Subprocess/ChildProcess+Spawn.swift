#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ChildProcess {
  /// Held while pipes are made and processes spawned, so that a pipe made without `pipe2`
  /// cannot leak into a child spawned by another thread before it is marked close-on-exec. It
  /// counts the spawns: around an empty `()` value ThreadSanitizer reported an access race on
  /// the value itself (zero-sized, it has no storage of its own); with a counter it does not.
  /// An orphan sweep holds it too, so that it never sees a child spawned but not yet known.
  static let spawnLock = Locked(0)
  /// The variable that tags a command and everything it starts, while ``Subprocesses`` adopts
  /// orphans: an adopted process with the tag of a command that ended is that command's.
  static let tagVariable = "LOADCTL_COMMAND_ID"

  /// Calls that Glibc's module does not import (they need `_GNU_SOURCE`), looked up once.
  private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
  private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
  #if canImport(Glibc)
    private typealias CloseFrom =
      @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private static let addCloseFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
  #endif
  private static let pipe2: Pipe2? = symbol("pipe2")
  private static let pidfdOpen: PidfdOpen? = symbol("pidfd_open")

  private static func symbol<Function>(_ name: String) -> Function? {
    guard let handle = dlopen(nil, RTLD_LAZY), let address = dlsym(handle, name) else { return nil }
    return unsafeBitCast(address, to: Function.self)
  }

  /// The lifeline watcher's shell script; `$1` is its command's tag (`NAME=value`), or empty when
  /// commands are not tagged. A killed process's environment reads empty, so the rounds end once
  /// every process with that exact tag is dead (at most 64 rounds, against one that keeps
  /// forking); only then its group.
  static let watcherScript = """
    tag=$1; read _; i=0
    while [ -n "$tag" ] && [ $i -lt 64 ]; do
      set -- $(grep -lzsxF -- "$tag" /proc/[0-9]*/environ)
      [ $# -gt 0 ] || break
      for f; do p=${f#/proc/}; kill -s KILL "${p%/environ}" 2>/dev/null; done
      i=$((i + 1))
    done
    kill -s KILL 0
    """

  /// Spawns the lifeline watcher as the leader of a new process group, then the command into
  /// that group, then the reader thread.
  ///
  /// The watcher comes first so that no moment exists where the command runs unwatched: were
  /// this process killed between two spawns, a command started first would be left behind.
  static func start(_ command: Subprocess) throws(SubprocessError) -> ChildProcess {
    try spawnLock.withLock { spawns throws(SubprocessError) in
      spawns += 1
      var made: [Int32] = []
      defer { for fd in made { close(fd) } }
      func makePipe() throws(SubprocessError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        let result = Self.pipe2.map { $0(&ends, O_CLOEXEC) } ?? pipe(&ends)
        guard result == 0 else { throw .spawnFailed(executable: command.executable, errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        made += ends
        return (ends[0], ends[1])
      }
      let (out, err, lifeline, wake) = try (makePipe(), makePipe(), makePipe(), makePipe())
      _ = fcntl(wake.write, F_SETFL, O_NONBLOCK)
      // The group's leader: at the end of its input (this process gone, or the lifeline closed)
      // it kills every process carrying its command's tag, round after round until none is
      // left (those that left the group), then its whole group, itself included. Its signals
      // are blocked, so that teardown's SIGTERM leaves it alive until the group's SIGKILL.
      let number = Subprocesses.isAdopting ? spawns : nil
      let tag = number.map { "\(tagVariable)=\(getpid()).\($0)" }
      let watcher = try spawn(
        "/bin/sh", ["-c", Self.watcherScript, "sh", tag ?? ""], environment: nil,
        fds: (lifeline.read, -1, -1), group: 0, blocked: [SIGTERM, SIGINT, SIGHUP, SIGQUIT])
      Subprocesses.registry.withLock {
        $0.groups.append(watcher)
        $0.known.insert(watcher)
      }
      func abandon(_ error: SubprocessError, pid: pid_t? = nil) -> SubprocessError {
        kill(-watcher, SIGKILL)
        Subprocesses.registry.withLock { $0.groups.removeAll { $0 == watcher } }
        for child in [watcher, pid ?? watcher] {
          while waitpid(child, nil, 0) < 0, errno == EINTR {}
        }
        Subprocesses.registry.withLock { $0.known.subtract([watcher, pid ?? watcher]) }
        return error
      }
      let pid: pid_t
      do throws(SubprocessError) {
        pid = try spawn(
          command.executable, command.arguments, environment: command.environment, tag: tag,
          fds: (command.standardInput ?? -1, out.write, err.write), group: watcher)
      } catch {
        throw abandon(error)
      }
      Subprocesses.registry.withLock {
        $0.known.insert(pid)
        if let number { $0.tags.insert(number) }
      }
      let pidfd = Self.pidfdOpen?(pid, 0) ?? -1
      let child = ChildProcess(
        command, pid: pid, watcher: watcher, stdout: out.read, stderr: err.read, pidfd: pidfd,
        wake: wake, lifeline: lifeline.write, number: number)
      made = [out.write, err.write, lifeline.read]
      guard ReaderThread.start({ child.run() }) else {
        made += [out.read, err.read, lifeline.write, pidfd]  // `wake` closes with `child`
        throw abandon(.spawnFailed(executable: command.executable, errno: EAGAIN), pid: pid)
      }
      return child
    }
  }

  /// `posix_spawn` with stdin, stdout and stderr from `fds` (`-1`: `/dev/null`), in process
  /// group `group` (0: a new one), every signal at its default, only `blocked` blocked; `tag`
  /// (`NAME=value`) is added to the environment (this process's when `environment` is `nil`).
  private static func spawn(
    _ path: String, _ arguments: [String], environment: [String: String]?, tag: String? = nil,
    fds: (Int32, Int32, Int32), group: pid_t, blocked: [Int32] = []
  ) throws(SubprocessError) -> pid_t {
    #if canImport(Glibc)
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #else
      var actions: posix_spawn_file_actions_t?
      var attributes: posix_spawnattr_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    for (target, fd) in [fds.0, fds.1, fds.2].enumerated().map({ (Int32($0), $1) }) {
      if fd < 0 {
        posix_spawn_file_actions_addopen(
          &actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
      } else {
        posix_spawn_file_actions_adddup2(&actions, fd, target)
      }
    }
    // Descriptors that this process left inheritable (sockets, a test runner's) stay here.
    #if canImport(Glibc)
      _ = addCloseFrom?(&actions, 3)
      let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    #else
      let flags =
        POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        | POSIX_SPAWN_CLOEXEC_DEFAULT
    #endif
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in blocked { sigaddset(&signals, signal) }
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setpgroup(&attributes, group)
    posix_spawnattr_setflags(&attributes, Int16(flags))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    var variables = environment.map { $0.map { "\($0)=\($1)" } }
    if let tag {
      if variables == nil {
        variables = []
        var entry = environ
        while let variable = entry.pointee {
          variables?.append(String(cString: variable))
          entry += 1
        }
      }
      let name = tag.prefix { $0 != "=" } + "="
      variables = (variables ?? []).filter { !$0.hasPrefix(name) } + [tag]
    }
    let envp = variables.map { $0.map { strdup($0) } + [nil] }
    defer { for string in argv + (envp ?? []) { free(string) } }
    var pid: pid_t = 0
    let result =
      if let envp {
        posix_spawn(&pid, path, &actions, &attributes, argv, envp)
      } else {
        posix_spawn(&pid, path, &actions, &attributes, argv, environ)
      }
    guard result == 0 else { throw .spawnFailed(executable: path, errno: result) }
    return pid
  }
}
