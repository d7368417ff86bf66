#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The processes a command started outside its process group (`setsid cmd &`, coreutils
/// `timeout`, a double fork), which this process adopts once their parent is gone (see
/// ``Subprocesses/adoptOrphans()``).
///
/// Each command carries a tag in its environment, which everything it starts inherits. When a
/// command ends, a sweep kills every adopted process whose tag names no running command, with
/// its group, reaps it, and repeats for what their deaths orphan in turn. A sweep also reaps
/// adopted processes that ended on their own. Sweeps run one at a time; a command that ends
/// while one runs waits for the next, which covers every command ended before it began.
#if os(Linux)
  extension ChildProcess {
    /// Requests made, and the last request that a finished sweep covered.
    private static let sweeps = Locked((requested: UInt64(0), covered: UInt64(0)))
    /// Held for a whole sweep.
    private static let sweepLock = Locked(())

    /// Kills and reaps the adopted processes of every command that has ended; returns once a sweep
    /// that began after this call has finished.
    /// - Returns: How many of the processes it killed carried the tag of command `number` and had
    ///   left its `group` (a sweep that another command's end ran may have killed some first;
    ///   those still in the group were dying of its kill).
    @discardableResult
    static func killOrphans(of number: Int? = nil, group: pid_t = 0) -> Int {
      let ticket = sweeps.withLock { sweeps in
        sweeps.requested += 1
        return sweeps.requested
      }
      return sweepLock.withLock { _ in
        let (covered, upTo) = sweeps.withLock { ($0.covered, $0.requested) }
        guard covered < ticket else { return 0 }
        var killed = 0
        sweep(killing: { tag, processGroup in
          guard !isRunningCommand(tag) else { return false }
          if let number, tag == number, processGroup != group { killed += 1 }
          return true
        })
        sweeps.withLock { $0.covered = max($0.covered, upTo) }
        return killed
      }
    }

    /// How many of this process's adopted children are alive in `group` besides its `watcher`:
    /// what a command left running in its own group when it ended.
    static func survivors(in group: pid_t, besides watcher: pid_t) -> Int {
      children(of: getpid()).count { pid in
        guard pid != watcher, let (state, processGroup) = status(of: pid) else { return false }
        return processGroup == group && state != UInt8(ascii: "Z")
      }
    }

    /// Kills every process below this one, whatever its tag and however deep: for the process's
    /// own end, after SIGKILL went to every command's group.
    ///
    /// A process that left a command's group (`setsid cmd &`) is adopted only once its parent
    /// has died, and the SIGKILL just sent has not always done that yet; were this process to end
    /// first, the orphan would go to init and outlive it. So the whole tree is walked and every
    /// live process in it gets SIGKILL where it stands (its group too, when it leads one), before
    /// any wait: what is killed this way can start nothing more. Then, for `deadline` at most, the
    /// walk is repeated until nothing below is alive, for what a dying process started in its
    /// last moment; nothing is reaped, since the process is about to end. The commands and
    /// watchers themselves are checked by pid, so a walk that misses one (a child moves to
    /// another thread when its parent thread ends) cannot end the wait early.
    static func killAllOrphans(deadline: Duration = .seconds(2)) {
      let clock = ContinuousClock()
      let end = clock.now.advanced(by: deadline)
      let me = getpid()
      while true {
        let living = spawnLock.withLock { _ in
          let known = Subprocesses.registry.withLock { $0.known }
          let below = killDescendants(of: me, besides: known)
          return below || known.contains { isAlive($0) }
        }
        guard living, clock.now < end else { return }
        usleep(500)
      }
    }

    /// Sends SIGKILL to every live process below `me` that is not in `known` (and to its group,
    /// when it leads one); returns whether any process below `me` was alive.
    ///
    /// A process's children are read before its state, and `me`'s own children are read again
    /// until no new one appears: a process seen dead may have died after its parent's list was
    /// read, and what it started is then `me`'s, in the next list. (Reading a list and then the
    /// states of what it names, a process that died in between hid its children: the wait at the
    /// end took its command for dead with nothing alive below, and returned too early.) A process
    /// is visited once; a walk visits at most ``walkLimit``.
    private static func killDescendants(of me: pid_t, besides known: Set<pid_t>) -> Bool {
      var seen: Set<pid_t> = [me]
      var living = false
      while seen.count <= walkLimit {
        var queue = children(of: me).filter { !seen.contains($0) }
        guard !queue.isEmpty else { break }
        while let pid = queue.popLast(), seen.count <= walkLimit {
          guard seen.insert(pid).inserted else { continue }
          queue += children(of: pid)
          guard let (state, group) = status(of: pid), isLiving(state) else { continue }
          living = true
          if !known.contains(pid) {
            if group == pid { kill(-pid, SIGKILL) }
            kill(pid, SIGKILL)
          }
        }
      }
      return living
    }

    /// At most this many processes are visited by one walk of the tree below this process.
    static let walkLimit = 100_000

    /// Whether `pid` exists and is not a zombie.
    private static func isAlive(_ pid: pid_t) -> Bool {
      status(of: pid).map { isLiving($0.state) } ?? false
    }

    /// Whether a process in `state` (a `/proc/PID/stat` letter) has yet to die.
    private static func isLiving(_ state: UInt8) -> Bool {
      state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
    }

    /// When a reader last reaped the adopted processes that had ended.
    private static let lastReap = Locked<ContinuousClock.Instant?>(nil)
    /// How often, at most, the readers of running commands reap the adopted processes that have
    /// ended; they poll at least this often while adopting (see `ChildProcess.run`).
    static let reapInterval: Duration = .seconds(1)

    /// Reaps the adopted processes that have ended on their own (zombies), killing nothing, if
    /// no reader has in the last ``reapInterval``.
    ///
    /// Sweeps run when a command ends; a command that keeps running while what it starts in the
    /// background ends (a feed's `(cmd &)`, a `setsid` helper) would otherwise leave a zombie
    /// each time until then, and a long run could use up the process table.
    static func reapEndedOrphansIfDue(now: ContinuousClock.Instant = .now) {
      let due = lastReap.withLock { last in
        if let last, last.duration(to: now) < reapInterval { return false }
        last = now
        return true
      }
      guard due, Subprocesses.isAdopting else { return }
      sweep(killing: { _, _ in false }, rounds: 1)
    }

    /// Whether `tag` (a command number of this process) names a command still running.
    private static func isRunningCommand(_ tag: Int?) -> Bool {
      guard let tag else { return false }
      return Subprocesses.registry.withLock { $0.tags.contains(tag) }
    }

    /// One sweep: adopted children whose command number and group satisfy `killing` get SIGKILL (their
    /// groups too, when they lead one) and are reaped; ended ones are reaped. Repeats until a
    /// round neither kills nor reaps, at most `rounds` times: a child that ended after the round
    /// read its list handed what it had started to this process too late for that list.
    private static func sweep(
      killing: (_ tag: Int?, _ group: pid_t) -> Bool, rounds: Int = 64
    ) {
      let me = getpid()
      for _ in 0..<rounds {
        let (killed, reaped): ([pid_t], Bool) = spawnLock.withLock { _ in
          let known = Subprocesses.registry.withLock { $0.known }
          var killed: [pid_t] = []
          var reaped = false
          for pid in children(of: me) where !known.contains(pid) {
            guard let (state, group) = status(of: pid) else { continue }
            if state == UInt8(ascii: "Z") {
              reaped = waitpid(pid, nil, WNOHANG) == pid || reaped
              continue
            }
            guard killing(commandNumber(of: pid, in: me), group) else { continue }
            if group == pid { kill(-pid, SIGKILL) }
            kill(pid, SIGKILL)
            killed.append(pid)
          }
          return (killed, reaped)
        }
        guard !killed.isEmpty || reaped else { return }
        for pid in killed {
          while waitpid(pid, nil, 0) < 0, errno == EINTR {}
        }
      }
    }

    /// The children of process `me`, from each of its threads' `children` list (a process adopted
    /// through a subreaper, or spawned by a thread other than the first, is the child of one of
    /// its threads).
    private static func children(of me: pid_t) -> [pid_t] {
      guard let threads = directory("/proc/\(me)/task") else { return [] }
      var children: [pid_t] = []
      for thread in threads {
        let text = read("/proc/\(me)/task/\(thread)/children") ?? []
        children += text.split(separator: UInt8(ascii: " ")).compactMap {
          pid_t(String(decoding: $0, as: UTF8.self).trimmingSpaces)
        }
      }
      return children
    }

    /// The state letter and process group of `pid`, from `/proc/PID/stat`.
    private static func status(of pid: pid_t) -> (state: UInt8, group: pid_t)? {
      guard let stat = read("/proc/\(pid)/stat"),
        let close = stat.lastIndex(of: UInt8(ascii: ")"))
      else { return nil }
      let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
      guard fields.count > 2, let state = fields[0].first,
        let group = pid_t(String(decoding: fields[2], as: UTF8.self))
      else { return nil }
      return (state, group)
    }

    /// The command number in `pid`'s tag, if it carries one of process `me`'s.
    ///
    /// A process in the middle of `exec` shows an empty environment for a moment (its new one is
    /// not laid out yet), so an empty one is read again, for about 10 ms at most, before it is
    /// taken for a process without any (`env -i`): read once, a `setsid sleep` caught in its
    /// exec was killed without being counted as its command's.
    private static func commandNumber(of pid: pid_t, in me: pid_t) -> Int? {
      let prefix = Array("\(tagVariable)=\(me).".utf8)
      var environment: [UInt8] = []
      for attempt in 0..<10 {
        guard let read = read("/proc/\(pid)/environ") else { return nil }
        environment = read
        guard environment.isEmpty, attempt < 9 else { break }
        usleep(1000)
      }
      for variable in environment.split(separator: 0) where variable.starts(with: prefix) {
        return Int(String(decoding: variable.dropFirst(prefix.count), as: UTF8.self))
      }
      return nil
    }

    private static func read(_ path: String) -> [UInt8]? {
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else { return nil }
      defer { close(fd) }
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        bytes += chunk[..<count]
      }
      return bytes
    }

    private static func directory(_ path: String) -> [String]? {
      guard let stream = opendir(path) else { return nil }
      defer { closedir(stream) }
      var names: [String] = []
      while let entry = readdir(stream) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
          $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name.first?.isNumber == true { names.append(name) }
      }
      return names
    }
  }

  extension String {
    fileprivate var trimmingSpaces: String {
      String(self.filter { !$0.isWhitespace })
    }
  }
#else
  extension ChildProcess {
    // Orphans are adopted on Linux only (`Subprocesses.adoptOrphans()` returns `false` elsewhere).
    @discardableResult
    static func killOrphans(of number: Int? = nil, group: pid_t = 0) -> Int { 0 }

    static func survivors(in group: pid_t, besides watcher: pid_t) -> Int { 0 }
    static func killAllOrphans(deadline: Duration = .seconds(2)) {}
    static let reapInterval: Duration = .seconds(1)
    static func reapEndedOrphansIfDue(now: ContinuousClock.Instant = .now) {}
  }
#endif

/// The system's `read(2)`, by a name no method here shadows.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
  #else
    Darwin.read(fd, buffer, count)
  #endif
}
