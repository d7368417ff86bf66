// libFuzzer entry point for the command-line parser, driven with the real command table.
//
// The input is split on NUL bytes into arguments (argv can never contain NUL), each decoded as
// UTF-8 with repair as the runtime decodes argv. Whatever `parse` returns must be usable: an
// error renders its three lines, help renders, and every typed getter of an `Invocation`
// succeeds, because the parser promises that each value was validated against its kind.

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

/// Reads every option the way a subcommand would; a getter that traps is a parser bug.
private func readEveryOption(of invocation: Invocation) {
  check(
    CommandTable.program.command(named: invocation.command) != nil,
    "ran unknown subcommand \(invocation.command)")
  for option in invocation.spec.options + invocation.globalOptions {
    switch option.valueKind {
    case nil: _ = invocation.flag(option.name)
    case .int, .nonNegativeInt, .positiveInt:
      let value = invocation.int(option.name)
      if option.valueKind == .nonNegativeInt, let value { check(value >= 0, "negative count") }
      if option.valueKind == .positiveInt, let value { check(value >= 1, "count below 1") }
    case .double: _ = invocation.double(option.name)
    case .duration:
      if let value = invocation.duration(option.name) { check(value >= .zero, "negative") }
    case .string, .file, .url, .command, .choice, .suggested: _ = invocation.string(option.name)
    }
    if option.valueKind != nil { _ = invocation.strings(option.name) }
    _ = invocation.isGiven(option.name)
  }
}

/// Stops the run with a message libFuzzer records as a crash, with its input saved.
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError("invariant broken: \(message())") }
}
