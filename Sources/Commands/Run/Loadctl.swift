import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The entry point behind `main`: parse, then print help, the manual page, version or
/// completions, or run.
package enum Loadctl {
  /// Parses the command line and answers everything that needs no runtime at once: `--version`,
  /// help, completions and usage errors print and end the process here, synchronously, before
  /// any thread or signal handler exists (that is what keeps `loadctl --version` close to a
  /// hello world's start-up). What is left is a subcommand to ``run(_:environment:)``.
  package static func respondOrParse(
    arguments: [String], environment: [String: String]
  ) -> Invocation {
    let program = CommandTable.program
    let result: ParseResult
    do throws(UsageError) {
      result = try parse(arguments, spec: program)
    } catch {
      fail(usage: error, json: arguments.prefix { $0 != "--" }.contains("--json"))
    }
    switch result {
    case .version:
      printOut("loadctl \(CommandTable.version)\n")
      exit(0)
    case .help(let command):
      let width = HelpRenderer.width(columns: environment["COLUMNS"])
      printOut(HelpRenderer(program: program, width: width).render(command: command) + "\n")
      exit(0)
    case .manual:
      printOut(ManPage(program: program).text)
      exit(0)
    case .completions(let shell):
      guard let script = completionScript(shell: shell, spec: program) else {
        fail(
          usage: .invalidValue(
            "unknown shell '\(shell)' (use bash, zsh or fish)", command: "completions"))
      }
      printOut(script)
      exit(0)
    case .run(let invocation):
      guard CommandTable.runner(for: invocation.command) != nil else {
        fail(usage: .invalidValue("unknown subcommand '\(invocation.command)'", command: nil))
      }
      return invocation
    }
  }

  /// Runs a parsed subcommand and ends the process with its documented status.
  package static func run(_ invocation: Invocation, environment: [String: String]) async -> Never {
    guard let run = CommandTable.runner(for: invocation.command) else {
      fail(usage: .invalidValue("unknown subcommand '\(invocation.command)'", command: nil))
    }
    await run(invocation, environment)
  }

  /// Prints a usage error and exits 64; with `--json`, also an `error` event on stdout.
  package static func fail(usage error: UsageError, json: Bool = false) -> Never {
    printErr(error.render(program: CommandTable.program) + "\n")
    if json {
      printOut(
        errorEvent(
          command: error.command, kind: "usage", message: error.message,
          status: UsageError.exitCode))
    }
    exit(UsageError.exitCode)
  }

  /// Prints `Error: message` and exits 65 (bad input data); with `--json`, also an `error`
  /// event on stdout.
  package static func fail(badInput message: String, command: String? = nil, json: Bool = false)
    -> Never
  {
    printErr("Error: \(message.escapingControlCharacters)\n")
    let status = CommandRuntime.ExitStatus.badInput
    if json {
      printOut(errorEvent(command: command, kind: "bad_input", message: message, status: status))
    }
    exit(status)
  }

  /// Prints `Error: message` and exits 69 (a tool loadctl needs is missing); with `--json`,
  /// also an `error` event on stdout.
  package static func fail(unavailable message: String, command: String?, json: Bool) -> Never {
    printErr("Error: \(message.escapingControlCharacters)\n")
    let status = ExternalCommand.unavailableStatus
    if json {
      printOut(errorEvent(command: command, kind: "unavailable", message: message, status: status))
    }
    exit(status)
  }

  /// The one line a `--json` run prints on stdout when it ends before its flow could start:
  /// `{"seq":1,"elapsed_ms":0,"command":…,"event":"error","kind":…,"message":…,"exit_status":…}`.
  /// `command` is `"loadctl"` when the mistake came before a subcommand was recognised.
  static func errorEvent(command: String?, kind: String, message: String, status: Int32)
    -> String
  {
    let event: JSONValue = .object([
      ("seq", .int(1)), ("elapsed_ms", .int(0)), ("command", .string(command ?? "loadctl")),
      ("event", "error"), ("kind", .string(kind)), ("message", .string(message)),
      ("exit_status", .int(Int(status))),
    ])
    return event.serialized + "\n"
  }

  /// Opens `--input` (a file, or `-` for stdin), or exits 65 with one clear line.
  package static func openInput(_ path: String?, for invocation: Invocation) -> (Int32, Bool)? {
    guard let path else { return nil }
    do throws(InputFile.Failure) {
      return try InputFile.open(path, option: "--input")
    } catch {
      fail(badInput: error.message, command: invocation.command, json: invocation.json)
    }
  }

  static func printOut(_ text: String) {
    let writer = OutputWriter(fileDescriptor: 1)
    writer.write(text)
    writer.flush()
  }

  static func printErr(_ text: String) {
    let writer = OutputWriter(fileDescriptor: 2)
    writer.write(text)
    writer.flush()
  }
}
