import Testing

@testable import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Real processes through `Subprocess`. Serialized: `terminateAll` kills every live group.
@Suite(.serialized) struct SubprocessTests {
  @Test func exitStatusAndStdoutAreReported() async throws {
    let output = try await Subprocess.shell("echo hello; echo world; exit 3").output()
    #expect(String(decoding: output.stdout, as: UTF8.self) == "hello\nworld\n")
    #expect(output.termination == .exited(3))
    #expect(!output.truncated)
    #expect(output.termination.description == "exit status 3")
  }

  @Test func aSignalIsReportedByName() async throws {
    let output = try await Subprocess.shell("kill -TERM $$").output()
    #expect(output.termination == .signalled(SIGTERM))
    #expect(output.termination.description == "killed by SIGTERM")
    #expect(Subprocess.Termination.signalled(40).description == "killed by signal 40")
  }

  @Test func stdoutBeyondTheLimitStopsTheCommand() async throws {
    let output = try await Subprocess.shell("exec yes").output(limit: 10)
    #expect(output.stdout == Array("y\ny\ny\ny\ny\n".utf8))
    #expect(output.truncated)
    #expect([.signalled(SIGTERM), .signalled(SIGPIPE)].contains(output.termination))
  }

  @Test func stdoutBeyondTheLimitCanBeDiscardedWhileTheCommandRunsOn() async throws {
    let output = try await Subprocess.shell("printf abc; seq 1 100000 >/dev/stdout; exit 4")
      .output(limit: 2, beyond: .discard)
    #expect(output.stdout == Array("ab".utf8))
    #expect(output.truncated)
    #expect(output.termination == .exited(4))
  }

  @Test func stderrKeepsTheLastLinesCapped() async throws {
    let script = """
      for i in $(seq 1 30); do echo "err$i" >&2; done
      head -c 5000 /dev/zero | tr '\\0' x >&2; echo >&2; printf 'last\\r' >&2; exit 1
      """
    let output = try await Subprocess.shell(script).output()
    #expect(output.stderrTail.count == 20)
    #expect(output.stderrTail.first == "err13")
    #expect(output.stderrTail[18] == String(repeating: "x", count: StderrTail.maxLineBytes))
    #expect(output.stderrTail.last == "last")
  }

  @Test func stdinIsDevNullUnlessADescriptorIsGiven() async throws {
    let empty = try await Subprocess.shell("cat; echo end $?").output()
    #expect(String(decoding: empty.stdout, as: UTF8.self) == "end 0\n")
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    _ = write(ends[1], "abc", 3)
    close(ends[1])
    defer { close(ends[0]) }
    var command = Subprocess.shell("cat")
    command.standardInput = ends[0]
    let output = try await command.output()
    #expect(String(decoding: output.stdout, as: UTF8.self) == "abc")
  }

  @Test func environmentReplacesTheInheritedOne() async throws {
    let command = Subprocess(
      executable: "/bin/sh", arguments: ["-c", "echo $FOO-$HOME"], environment: ["FOO": "bar"])
    #expect(try await command.output().stdout == Array("bar-\n".utf8))
  }

  /// Not even descriptors this process leaves inheritable (the test runner has a few).
  @Test func concurrentCommandsInheritOnlyTheirOwnDescriptors() async throws {
    let listings = try await withThrowingTaskGroup(of: String.self) { tasks in
      for _ in 0..<8 {
        tasks.addTask {
          let output = try await Subprocess.shell("ls /proc/$$/fd").output()
          return String(decoding: output.stdout, as: UTF8.self)
        }
      }
      return try await tasks.reduce(into: []) { $0.append($1) }
    }
    #expect(listings == Array(repeating: "0\n1\n2\n", count: 8))
  }

  @Test func aMissingExecutableFailsToSpawn() async {
    let error = await #expect(throws: SubprocessError.self) {
      try await Subprocess(executable: "/nonexistent/tool").output()
    }
    #expect(error == .spawnFailed(executable: "/nonexistent/tool", errno: ENOENT))
    #expect(error?.description == "cannot run /nonexistent/tool: No such file or directory")
  }

  @Test func linesStreamWhileTheCommandRunsAndItIsTornDownAfterBody() async throws {
    let (lines, termination, _) = try await Subprocess.shell(
      "printf 'one\\r\\ntwo\\nthree'; exec sleep 100"
    ).withLines { lines in
      [await lines.nextString(), await lines.nextString()]
    }
    #expect(lines == ["one", "two"])
    #expect(termination == .signalled(SIGTERM))
  }

  @Test func outputHandsOverStderrLinesAndKeepsStdoutWhole() async throws {
    var command = Subprocess.shell("printf 'e1\\ne2' >&2; printf '{\\r\\n}'")
    command.streamsStderr = true
    let seen = Locked<[String]>([])
    let output = try await command.output { lines in seen.withLock { $0 += lines } }
    #expect(seen.withLock { $0 } == ["e1", "e2"])
    #expect(output.stdout == Array("{\r\n}".utf8))
    #expect(output.stderrTail == ["e1", "e2"])
  }

  @Test func nextLinesGivesTheLinesOfAReadAtOnce() async throws {
    var command = Subprocess.shell("printf 'a\\nb\\r\\nc'; printf 'e1\\ne2\\n' >&2")
    command.streamsStderr = true
    let (batches, termination, _) = try await command.withLines { lines in
      var all: [Subprocess.LineIterator.Lines] = []
      while let batch = await lines.nextLines() { all.append(batch) }
      return all
    }
    #expect(batches.first { $0.stream == .stdout }?.lines == ["a", "b"])
    #expect(batches.filter { $0.stream == .stdout }.flatMap(\.lines) == ["a", "b", "c"])
    #expect(batches.filter { $0.stream == .stderr }.flatMap(\.lines) == ["e1", "e2"])
    #expect(termination == .exited(0))
  }

  @Test func stderrLinesStreamBesideStdoutWithAnUnterminatedLastLine() async throws {
    var command = Subprocess.shell(
      "echo out1; echo err1 >&2; echo out2; printf 'err2\\r\\n' >&2; printf end")
    command.streamsStderr = true
    let (lines, termination, tail) = try await command.withLines { lines in
      var all: [Subprocess.LineIterator.Line] = []
      while let line = await lines.nextLine() { all.append(line) }
      return (all, lines.droppedStderrBytes)
    }
    let text = { (stream: Subprocess.LineIterator.Stream) in
      lines.0.filter { $0.stream == stream }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }
    #expect(text(.stdout) == ["out1", "out2", "end"])
    #expect(text(.stderr) == ["err1", "err2"])
    #expect(lines.1 == 0)
    #expect(tail == ["err1", "err2"])
    #expect(termination == .exited(0))
  }

  @Test func withoutStreamingStderrNextLineGivesStdoutOnly() async throws {
    let (lines, _, tail) = try await Subprocess.shell("echo out; echo err >&2").withLines {
      lines in
      var all: [Subprocess.LineIterator.Line] = []
      while let line = await lines.nextLine() { all.append(line) }
      return all
    }
    #expect(lines == [.init(stream: .stdout, bytes: Array("out".utf8))])
    #expect(tail == ["err"])
  }

  @Test func aStderrFloodUnreadIsDroppedAndCountedNotBuffered() async throws {
    var command = Subprocess.shell("head -c 1000000 /dev/zero | tr '\\0' x >&2")
    command.streamsStderr = true
    let (counts, termination, _) = try await command.withLines { lines in
      // Nothing is taken while the flood is written: what does not fit is dropped, not kept.
      let dropped = await eventually { [lines] in
        lines.droppedStderrBytes >= 1_000_000 - ChildProcess.bound
      }
      var shown = 0
      while let line = await lines.nextLine() { shown += line.bytes.count }
      return (dropped, shown, lines.droppedStderrBytes)
    }
    #expect(termination == .exited(0))
    #expect(counts.0)
    #expect(counts.1 <= ChildProcess.bound)
    #expect(counts.1 + counts.2 == 1_000_000)
  }

  @Test func nonUTF8AndLongLinesAreSafe() async throws {
    let script = "printf '\\377\\376abc\\n'; head -c 2200000 /dev/zero | tr '\\0' x; printf '\\r'"
    let (lines, termination, _) = try await Subprocess.shell(script).withLines { lines in
      var all: [[UInt8]] = []
      while let line = await lines.next() { all.append(line) }
      return all
    }
    #expect(termination == .exited(0))
    #expect(lines.first == [0xFF, 0xFE] + Array("abc".utf8))
    #expect(String(decoding: lines[0], as: UTF8.self) == "\u{FFFD}\u{FFFD}abc")
    let limit = Subprocess.LineIterator.maxLine
    #expect(lines.dropFirst().map(\.count) == [limit, limit, 2_200_000 - 2 * limit])
  }

  @Test func aCommandThatIgnoresSIGTERMIsKilledAfterTheGrace() async throws {
    var command = Subprocess.shell("trap '' TERM; echo ready; exec sleep 100")
    command.killAfter = .milliseconds(200)
    let start = ContinuousClock.now
    let (_, termination, _) = try await command.withLines { lines in _ = await lines.next() }
    #expect(termination == .signalled(SIGKILL))
    #expect(ContinuousClock.now - start >= .milliseconds(200))
  }

  @Test func cancellationTearsDownTheWholeGroup() async throws {
    let group = Locked<pid_t>(0)
    await withTaskGroup(of: Void.self) { tasks in
      tasks.addTask {
        await #expect(throws: SubprocessError.cancelled) {
          try await Subprocess.shell("sleep 100 & sleep 100 & echo ready; wait").withLines {
            lines in
            _ = await lines.next()
            group.withLock { $0 = lines.child.group }
            #expect(getpgid(lines.child.pid) == lines.child.group, "the command is in the group")
            while await lines.next() != nil {}
          }
        }
      }
      await eventually { group.withLock { $0 } != 0 }
      tasks.cancelAll()
    }
    await expectGone(group.withLock { $0 })
  }

  @Test func cancellingOutputTearsDownAndThrows() async throws {
    let marker = "/tmp/loadctl-subprocess-\(getpid())-started"
    defer { unlink(marker) }
    // Written under a temporary name and renamed: the marker never exists empty.
    let task = Task {
      try await Subprocess.shell(
        "echo $$ > \(marker).tmp && mv \(marker).tmp \(marker); sleep 100 & wait"
      )
      .output()
    }
    await eventually { access(marker, F_OK) == 0 }
    task.cancel()
    await #expect(throws: SubprocessError.cancelled) { try await task.value }
    let text = try await Subprocess(executable: "/bin/cat", arguments: [marker]).output().stdout
    let pid = pid_t(String(decoding: text.dropLast(), as: UTF8.self)) ?? 0
    #expect(pid > 0)
    await expectGone(pid)
  }

  @Test func grandchildrenLeftByANormalExitAreKilled() async throws {
    let output = try await Subprocess.shell("sleep 100 & echo $$ $!").output()
    #expect(output.termination == .exited(0))
    let pids = String(decoding: output.stdout, as: UTF8.self).split(separator: " ")
    let (leader, grandchild) = (pid_t(pids[0]) ?? 0, pid_t(pids[1].dropLast()) ?? 0)
    await expectGone(leader)
    #expect(await eventually { !isAlive(grandchild) })
  }

  @Test func aFloodIsHeldByTheBoundWhileTheConsumerIsSlow() async throws {
    let (peak, termination, _) = try await Subprocess(executable: "/usr/bin/yes").withLines {
      lines in
      for index in 0..<200_000 {
        _ = await lines.next()
        if index % 1000 == 0 { await Task.yield() }
      }
      return lines.child.peakBuffered
    }
    #expect(peak <= ChildProcess.bound)
    #expect(peak > 0)
    #expect(termination == .signalled(SIGTERM))
  }

  @Test func closedStdoutEndsLinesButOutputWaitsForExit() async throws {
    let (count, termination, _) = try await Subprocess.shell("echo a; exec >&-; exec sleep 100")
      .withLines { lines in
        var count = 0
        while await lines.next() != nil { count += 1 }
        return count
      }
    #expect(count == 1)
    #expect(termination == .signalled(SIGTERM))
    let output = try await Subprocess.shell("exec >&- 2>&-; sleep 0.2; exit 4").output()
    #expect(output.termination == .exited(4))
  }

  @Test func closingTheLifelineKillsTheGroup() async throws {
    let group = Locked<pid_t>(0)
    let (_, termination, _) = try await Subprocess.shell("sleep 100 & sleep 100 & echo ready; wait")
      .withLines { lines in
        _ = await lines.next()
        group.withLock { $0 = lines.child.group }
        lines.child.closeLifeline()
        while await lines.next() != nil {}
      }
    #expect(termination == .signalled(SIGKILL))
    await expectGone(group.withLock { $0 })
  }

  // `Subprocesses.terminateAll()` is not tested here: it kills every group of the process, and
  // suites in other files run their commands in this process at the same time. The end-to-end
  // tests of a forced exit (`ContainedCommandsTests`, `SignalStormTests`) cover it.
}

/// Polls `condition` for what only polling can see (`/proc`, a file a child writes, a process
/// group's end), until it holds or 10 s pass: a guard against hanging, not a measurement. As in
/// the end-to-end `Polling`, the condition is tested once more after the deadline, because this
/// test may have been kept off the CPU for the whole wait.
@discardableResult
private func eventually(_ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(10)
  while true {
    let expired = ContinuousClock.now >= deadline
    if condition() { return true }
    if expired { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
}

/// The state letter of `/proc/<pid>/stat` (`R`, `S`, `Z`, ...); `nil` when there is no such process.
private func procState(_ pid: pid_t) -> UInt8? {
  let fd = open("/proc/\(pid)/stat", O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var bytes = [UInt8](repeating: 0, count: 512)
  let count = read(fd, &bytes, bytes.count)
  guard count > 0, let paren = bytes[..<count].lastIndex(of: UInt8(ascii: ")")), paren + 2 < count
  else { return nil }
  return bytes[paren + 2]
}

/// Whether `pid` exists and is not a zombie.
private func isAlive(_ pid: pid_t) -> Bool {
  procState(pid).map { $0 != UInt8(ascii: "Z") } ?? false
}

/// Expects `group` to be gone: no member left (zombies included), the leader not a zombie.
private func expectGone(_ group: pid_t, sourceLocation: SourceLocation = #_sourceLocation) async {
  #expect(group > 0, sourceLocation: sourceLocation)
  let gone = await eventually { kill(-group, 0) == -1 && errno == ESRCH }
  #expect(gone, "group \(group) still has members", sourceLocation: sourceLocation)
  #expect(procState(group) != UInt8(ascii: "Z"), sourceLocation: sourceLocation)
}
