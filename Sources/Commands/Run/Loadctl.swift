import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The entry point behind `main`: parse, then print help, the manual page, version or
/// completions, or run; each path returns how the process ends, and only `main` ends it.
package enum Loadctl {
  /// What the command line asks for: an answer already printed, or a subcommand to run.
  package enum Request: Sendable {
    /// `--version`, help, the manual page, completions or a usage error: printed; end this way.
    case answered(ProcessEnd)
    /// A subcommand and its runner (looked up once, here).
    case run(Invocation, CommandTable.Runner)
  }

  /// Parses the command line and answers everything that needs no runtime at once: `--version`,
  /// help, completions and usage errors are printed here, synchronously, before any thread or
  /// signal handler exists (that is what keeps `loadctl --version` close to a hello world's
  /// start-up). What is left is a subcommand to ``run(_:with:environment:)``.
  package static func respondOrParse(
    arguments: [String], environment: [String: String], notUTF8: Int? = nil
  ) -> Request {
    let program = CommandTable.program
    let result: ParseResult
    do throws(UsageError) {
      if let notUTF8 {
        // `CommandLine.arguments` repairs such bytes as U+FFFD: a file name would then name
        // another file, and a query other text than the one given.
        let command = program.commands.first { $0.name == arguments.first }?.name
        throw .invalidValue(
          "argument \(notUTF8) is not UTF-8 text; loadctl takes names and values as UTF-8",
          command: command)
      }
      result = try parse(arguments, spec: program)
    } catch {
      let failure = fail(usage: error, json: arguments.prefix { $0 != "--" }.contains("--json"))
      failure.report()
      return .answered(.exit(failure.status))
    }
    switch result {
    case .version(let json):
      let text =
        json
        ? JSONValue.object(CommandTable.versionFields).serialized
        : "loadctl \(CommandTable.version)"
      return .answered(answer(text + "\n"))
    case .help(let command):
      let width = HelpRenderer.width(columns: environment["COLUMNS"])
      return .answered(
        answer(HelpRenderer(program: program, width: width).render(command: command) + "\n"))
    case .manual:
      return .answered(answer(ManPage(program: program).text))
    case .completions(let shell):
      guard let script = completionScript(shell: shell, spec: program) else {
        let failure = fail(
          usage: .invalidValue(
            "unknown shell '\(shell)' (use bash, zsh or fish)", command: "completions"))
        failure.report()
        return .answered(.exit(failure.status))
      }
      return .answered(answer(script))
    case .run(var invocation):
      invocation.arguments = arguments
      if invocation[CommandTable.interactiveOption], invocation[CommandTable.noInputOption] {
        // One asks for keys even when the flow would end by itself, the other for none.
        let failure = fail(
          usage: .invalidValue(
            "'-i' and '--no-input' cannot be used together", command: invocation.command),
          json: invocation.json)
        failure.report()
        return .answered(.exit(failure.status))
      }
      guard let runner = CommandTable.runner(for: invocation.command) else {
        let failure = fail(
          usage: .invalidValue("unknown subcommand '\(invocation.command)'", command: nil))
        failure.report()
        return .answered(.exit(failure.status))
      }
      return .run(invocation, runner)
    }
  }

  /// Runs a parsed subcommand and returns how the process must end.
  package static func run(
    _ invocation: Invocation, with runner: CommandTable.Runner, environment: [String: String]
  ) async -> ProcessEnd {
    do throws(EarlyExit) {
      return try await runner(invocation, environment)
    } catch {
      error.report()
      return .exit(error.status)
    }
  }

  /// A usage error (status 64) to throw; ``EarlyExit/report()`` prints it.
  package static func fail(usage error: UsageError, json: Bool = false) -> EarlyExit {
    EarlyExit(.usage(error), command: error.command, json: json)
  }

  /// Bad input (status 65) to throw; ``EarlyExit/report()`` prints it.
  package static func fail(badInput message: String, command: String? = nil, json: Bool = false)
    -> EarlyExit
  {
    EarlyExit(.badInput(message), command: command, json: json)
  }

  /// A missing tool (status 69) to throw; ``EarlyExit/report()`` prints it.
  package static func fail(unavailable message: String, command: String?, json: Bool)
    -> EarlyExit
  {
    EarlyExit(.unavailable(message), command: command, json: json)
  }

  /// Opens `--input` (or `option`: a file, or `-` for stdin); one clear line and status 65 when it
  /// cannot.
  package static func openInput(_ path: String?, for run: RunOptions, option: String = "--input")
    throws(EarlyExit) -> (Int32, Bool)?
  {
    // A replay reads no input: its lines come from the recording.
    guard let path, !run.mode.isReplay else { return nil }
    do throws(InputFile.Failure) {
      return try InputFile.open(path, option: option)
    } catch {
      throw fail(badInput: error.message, command: run.command, json: run.json)
    }
  }

  /// Writes an answer (version, help, manual, completions) to stdout; how the process ends:
  /// 0, or 74 with one `Error:` line when stdout cannot take it (a full disk).
  static func answer(_ text: String) -> ProcessEnd {
    let writer = OutputWriter(fileDescriptor: 1)
    writer.write(text)
    writer.flush()
    switch writer.failure {
    case nil: return .exit(ExitStatus.completed)
    case EPIPE?: return .brokenPipe
    case let code?:
      printErr(ErrorLine.text(ErrorLine.stdoutFailed(code)))
      return .exit(ExitStatus.ioError)
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
