import Commands
import Core

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// First thing: the signal handler and its reader thread, so no signal is ever lost.
UnixSignals.prepare([.interrupt, .terminate])

var environment: [String: String] = [:]
var pointer = environ
while let entry = pointer.pointee {
  let text = String(cString: entry)
  if let equals = text.firstIndex(of: "=") {
    environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
  }
  pointer += 1
}
await Loadctl.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
