import LoadctlCommands
import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// A standard descriptor the caller closed (`loadctl … <&-`) would be reused by the next one the
// process opens — libdispatch's epoll descriptor lands on 0 — and `--input -` would then read
// it. Holding each closed one on /dev/null keeps 0, 1 and 2 meaning stdin, stdout and stderr.
// Before anything else opens a descriptor, including the signal pipe below.
for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 {
  _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
}

var environment: [String: String] = [:]
var pointer = environ
while let entry = pointer.pointee {
  let text = String(cString: entry)
  if let equals = text.firstIndex(of: "=") {
    environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
  }
  pointer += 1
}

// `--version`, help, completions and usage errors are answered here, synchronously: no thread,
// no signal handler, no hop to the concurrency runtime (a signal meanwhile kills the process by
// its default action, which is what a shell expects of a program that has done nothing yet).
let invocation = Loadctl.respondOrParse(
  arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)

// Then, before any work starts: the signal handler and its reader thread, so no signal is lost.
UnixSignals.prepare([.interrupt, .terminate])

await Loadctl.run(invocation, environment: environment)
