// The Ctrl-C reference of scripts/bench.sh: the least a Swift program does to stop structured
// work on SIGINT. It starts a task group of children that sleep for an hour, prints `ready`,
// and when SIGINT arrives cancels the group, waits for every child to end, prints `cancelled`
// and dies by SIGINT — what `loadctl profile`/`ticker` do, without a store or any output format.
// scripts/bench_cancel.py times from the signal to the process being gone.
//
// SIGINT arrives the way it does in loadctl: a handler (installed with `signal`, so it works
// even when the process was started with SIGINT ignored, as a shell's background job is) writes
// a byte to a pipe, and a dispatch thread waiting on the pipe resumes the main task. So the
// ratio isolates what loadctl adds on top of delivery: the store, the final transitions, the
// output. This program is a benchmark, not part of loadctl: it uses `Task.sleep` and the real
// clock on purpose.
//
// Usage: CancelReference [CHILDREN]   (default 4)

import Dispatch

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a line straight to fd 1: unbuffered, so the driver sees it at once through a pipe.
func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// The pipe's ends: the handler writes, a dispatch thread reads.
nonisolated(unsafe) var wakeFDs: [Int32] = [-1, -1]
guard pipe(&wakeFDs) == 0 else { fatalError("pipe") }
nonisolated(unsafe) var wakeWriteFD = wakeFDs[1]
let wakeReadFD = wakeFDs[0]
signal(SIGINT) { _ in
  var byte: UInt8 = 1
  _ = write(wakeWriteFD, &byte, 1)
}

/// Returns when SIGINT has arrived.
func interrupted() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    DispatchQueue.global().async {
      var byte: UInt8 = 0
      while read(wakeReadFD, &byte, 1) < 0, errno == EINTR {}
      continuation.resume()
    }
  }
}

let children = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 4

await withTaskGroup(of: Void.self) { group in
  for _ in 0..<children {
    group.addTask { try? await Task.sleep(for: .seconds(3600)) }
  }
  say("ready")
  await interrupted()
  group.cancelAll()
  await group.waitForAll()
}
say("cancelled")
signal(SIGINT, SIG_DFL)
raise(SIGINT)
