// libFuzzer entry point for the command-line parser, driven with the real command table.
//
// The input is split on NUL bytes into arguments (argv can never contain NUL), each decoded as
// UTF-8 with repair as the runtime decodes argv. Whatever `parse` returns must be usable: an
// error renders its three lines, help renders, and every option of an `Invocation` reads as its
// key's type, because the parser converted each value (and default) while checking it.

/// Called by libFuzzer once per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArgumentParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
  let program = CommandTable.program
  do throws(UsageError) {
    switch try parse(arguments, spec: program) {
    case .help(let command):
      let text = HelpRenderer(program: program, width: 80).render(command: command)
      check(!text.isEmpty, "empty help for \(String(describing: command))")
    case .version, .manual:
      break
    case .completions(let shell):
      check(ProgramSpec.shells.contains(shell), "completions for unknown shell \(shell)")
    case .run(let invocation):
      readEveryOption(of: invocation)
    }
  } catch {
    let lines = error.render(program: program).split(
      separator: "\n", omittingEmptySubsequences: false)
    check(lines.count == 3, "usage error is not three lines: \(lines)")
    check(lines[0].hasPrefix("Error: "), "error without 'Error: ': \(lines)")
    check(lines[1].hasPrefix("Usage: loadctl "), "no usage line: \(lines)")
    check(error.exitCode == 64, "usage error with status \(error.exitCode)")
  }
  return 0
}

/// Reads the options the way the subcommands do, through their typed keys: the shared ones for
/// every subcommand, and all of them for those whose options touch no file. A read that traps
/// is a parser bug, since the parser converted every value and default while checking it.
private func readEveryOption(of invocation: Invocation) {
  check(
    CommandTable.program.command(named: invocation.command) != nil,
    "ran unknown subcommand \(invocation.command)")
  let run = RunOptions(invocation, environment: [:], terminals: .none)
  check(run.command == invocation.command, "options of \(run.command) for \(invocation.command)")
  switch invocation.command {
  case TimerCommand.spec.name: _ = try? TimerCommand.options(invocation, run, environment: [:])
  case TickerCommand.spec.name: _ = try? TickerCommand.options(invocation, run, environment: [:])
  case CounterCommand.spec.name: _ = try? CounterCommand.options(invocation, run, environment: [:])
  default: break
  }
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
