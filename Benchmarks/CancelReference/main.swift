// The Ctrl-C reference of scripts/bench.sh: the least a Swift program does to stop structured
// work on SIGINT. It starts a task group of children that sleep for an hour, prints `ready`,
// and when SIGINT arrives cancels the group, waits for every child to end, prints `cancelled`
// and dies by SIGINT — what `loadctl profile`/`ticker` do, without a store or any output format.
// scripts/bench_cancel.py times from the signal to the process being gone.
//
// SIGINT arrives through Core's `UnixSignals` (a handler writing to a self-pipe), the same way
// as in loadctl: libdispatch's signal sources lose signals in processes started with SIGINT
// ignored or blocked (see Sources/Core/Signals/UnixSignals.swift), and a reference that cannot be
// interrupted measures nothing. So the ratio isolates what loadctl adds on top of delivery: the
// store, the final transitions, the output. This program is a benchmark, not part of loadctl: it
// uses `Task.sleep` and the real clock on purpose.
//
// Usage: CancelReference [CHILDREN]   (default 4)

import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a line straight to fd 1: unbuffered, so the driver sees it at once through a pipe.
func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

let children = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 4

UnixSignals.prepare([.interrupt])
let interrupts = UnixSignals([.interrupt]).watch()

await withTaskGroup(of: Void.self) { group in
  for _ in 0..<children {
    group.addTask { try? await Task.sleep(for: .seconds(3600)) }
  }
  say("ready")
  for await _ in interrupts { break }
  group.cancelAll()
  await group.waitForAll()
}
say("cancelled")
UnixSignals.die(by: .interrupt)
