import LoadctlCommands
import LoadctlCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// SIGQUIT (Ctrl-\) must end the process at once, as it does any other program: Swift's runtime
// gives it to its backtracer, which prints a crash report and then lets the program go on.
// Default first, so nothing answers it that way; the handler installed below restores the
// terminal and dies by it. One inherited as ignored stays ignored.
if !UnixSignals.isInheritedIgnored(.quit) { _ = signal(SIGQUIT, SIG_DFL) }

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
// Every path returns how the process ends, and this file alone ends it.
// The first argument that is not valid UTF-8, counting from 1 after the program's name.
let notUTF8 = (1..<Int(CommandLine.argc)).first { index in
  CommandLine.unsafeArgv[index].map { String(validatingCString: $0) == nil } ?? false
}
switch Loadctl.respondOrParse(
  arguments: Array(CommandLine.arguments.dropFirst()), environment: environment,
  notUTF8: notUTF8)
{
case .answered(let end):
  end.terminate()
case .run(let invocation, let runner):
  // With too few file descriptors libdispatch traps or hangs: say so and exit 71 instead.
  if let end = CommandRuntime.requireDescriptors(for: invocation.command) { end.terminate() }
  // With too few threads it hangs for ever: say so and exit 71 instead.
  if let end = CommandRuntime.requireThreads() { end.terminate() }
  // Then, before any work starts (opening a FIFO may block): the signal handlers and their
  // reader thread, so every signal is answered.
  UnixSignals.prepare(UnixSignal.handled)
  // A process a command starts outside its process group (`setsid`, `timeout`) becomes this
  // process's child when its parent dies, and is killed when its command ends.
  Subprocesses.adoptOrphans()
  await Loadctl.run(invocation, with: runner, environment: environment).terminate()
}
