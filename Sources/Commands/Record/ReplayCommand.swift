import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `loadctl replay FILE`: runs a recorded run again on virtual time, prints what it printed, and
/// stops at the first point where the flow does something the recording does not hold.
package enum ReplayCommand {
  enum Option {
    static let until = OptionKey.value(
      "until", .duration,
      help: "Stop the replay at this moment of the run and print the flow's state there (a "
        + "`state` event with --json), instead of its end.")
    static let check = OptionKey.flag(
      "check",
      help: "Print only the verdict: status 0 when the replay matches the recording (whatever "
        + "status the recorded run ended with), 4 when it diverges.")
  }

  package static let spec = CommandSpec(
    name: "replay",
    summary: "Run a recording again on virtual time, and say where a replay diverges.",
    discussion: """
      Runs the flow of a recording made with --record again, with the recorded options, on \
      virtual time: input lines, keys and signals arrive at their recorded times, and every \
      effect that was real (a command, curl, a built-in source) is not run again: its recorded \
      result arrives at its recorded time. It prints what the run printed (text by default, \
      --json for the events) and ends with the recorded status; a run that died by a signal \
      replays its final transitions and end, then exits 128 + the signal's number without \
      dying by it. Each event is checked against the recorded one: at the first difference \
      the replay stops with a report on stderr (the time, both events with the differing \
      fields, the events before) and status 4. --trace and --timeline work as on a run.
      """,
    options: [Option.check, Option.until],
    positionals: [
      PositionalSpec(name: "recording", help: "A file written by --record.", kind: .regularFile)
    ],
    examples: [
      "loadctl search --naive --type swift --exec 'sleep 0.$(($$ % 5)); echo {query}' "
        + "--record run.jsonl",
      "loadctl replay run.jsonl",
      "loadctl replay --json run.jsonl | jq -c 'select(.event == \"transition\")'",
      "loadctl replay --check run.jsonl",
      "loadctl replay --until 1.5s --json run.jsonl",
    ],
    refusedGlobalOptions: [CommandTable.recordOption] + recordedRunOptions)

  /// The recorded run's own options: a replay takes them from the recording, so one given here
  /// would be ignored without a word; each is a usage error.
  private static let recordedRunOptions: [any OptionKeyProtocol] = [
    CommandTable.clockOption, CommandTable.interactiveOption, CommandTable.noInputOption,
    CommandTable.denyOption, CommandTable.allowOption,
  ]

  /// The most of a bad recording's `Error:` line that is printed: it may quote the recording's
  /// values, which may be long.
  private static let messageLimit = 1000

  /// Reads the recording, rebuilds the recorded run's options, replays it, and returns how the
  /// process ends.
  static let run: CommandTable.Runner = { invocation, environment throws(EarlyExit) in
    let json = invocation.json
    let path = invocation.positionals.first ?? ""
    if invocation[CommandTable.recordOption] != nil {
      throw Loadctl.fail(
        usage: .invalidValue("'--record' cannot be used with 'replay'", command: spec.name),
        json: json)
    }
    if let given = recordedRunOptions.first(where: { invocation.isGiven($0) }) {
      throw Loadctl.fail(
        usage: .invalidValue(
          "'\(given.spec.longForm)' cannot be used with 'replay': a replay runs with the "
            + "recorded run's options", command: spec.name),
        json: json)
    }
    if isStdout(path) {
      throw Loadctl.fail(
        usage: .invalidValue(
          "the recording '\(path)' is also the replay's stdout: what it prints would mix into "
            + "what it reads", command: spec.name),
        json: json)
    }
    let recording: Recording
    switch Recording.load(path: path) {
    case .success(let read): recording = read
    case .failure(let problem):
      throw Loadctl.fail(
        badInput: problem.message.shortened(to: messageLimit), command: spec.name, json: json)
    }
    let notParsed = { (message: String) in
      Loadctl.fail(
        badInput: "recording '\(path)' line 1: its options no longer parse: \(message)"
          .shortened(to: messageLimit),
        command: spec.name, json: json)
    }
    let result: ParseResult
    do throws(UsageError) {
      result = try parse(recording.header.arguments, spec: CommandTable.program)
    } catch {
      throw notParsed(error.message)
    }
    guard case .run(let recorded) = result, recorded.command == recording.header.command,
      let start = CommandTable.starter(for: recorded.command)
    else {
      throw notParsed("they do not name a subcommand that runs a flow")
    }
    let session = ReplaySession(recording: recording, until: invocation[Option.until])
    var run = RunOptions(recorded, environment: environment, terminals: .none)
    run.json = json
    run.quiet = invocation.quiet
    run.style = Style.detect(
      isTerminal: isatty(1) == 1, noColorFlag: invocation.noColor, environment: environment)
    run.tracePath = invocation[CommandTable.traceOption]
    run.timeline = invocation[CommandTable.timelineOption]
    run.recordPath = nil
    run.mode = .replay(
      of: recorded, options: recordedOptions(recording),
      stdinTerminal: recording.header.stdinTerminal)
    run.replay = session
    run.discardsOutput = invocation[Option.check]
    // The replay's own options first: what they get wrong is not the recording's fault, and
    // `--trace` must not name the recording it reads.
    run.readFiles = [path]
    try CommandRuntime.checkWrittenFiles(run, command: spec.name)
    let end: ProcessEnd
    do throws(EarlyExit) {
      end = try await start(recorded, run, environment)
    } catch {
      // The recorded options reach a flow's start only here (its actions, its `start` event's
      // options): what it refuses is the recording's fault, said with the recording's name.
      switch error.problem {
      case .usage, .badInput: throw notParsed(error.message)
      case .unavailable: throw error
      }
    }
    return verdict(session, end: end, path: path, checkOnly: invocation[Option.check])
  }

  /// Whether `path` names the file open as stdout.
  private static func isStdout(_ path: String) -> Bool {
    var file = stat()
    var output = stat()
    guard stat(path, &file) == 0, fstat(1, &output) == 0 else { return false }
    return file.st_dev == output.st_dev && file.st_ino == output.st_ino
  }

  /// The options the recorded run's `start` event printed (the seed of search and ticker, the
  /// size of a `--corpus`), so a replay's `start` says the same.
  private static func recordedOptions(_ recording: Recording) -> JSONValue? {
    guard let first = recording.events.first,
      let start = try? JSONParser.parse(bytes: first.bytes)
    else { return nil }
    return start["options"]
  }

  /// How the replay ends: 65 for a recording it could not apply or one cut short, 4 for a
  /// divergence, else the recorded status (0 with `--check`).
  private static func verdict(
    _ session: ReplaySession, end: ProcessEnd, path: String, checkOnly: Bool
  ) -> ProcessEnd {
    if let problem = session.ownOutputProblem {
      Loadctl.printErr(ErrorLine.text(problem))
    }
    if let failure = session.failure {
      Loadctl.printErr(ErrorLine.text(failure.shortened(to: messageLimit)))
      return .exit(ExitStatus.badInput)
    }
    if session.interruption != nil, session.divergence == nil {
      // Stopped from outside (Ctrl-C, a closed or failing stdout): neither the recording nor the
      // program is to blame for what was not replayed.
      return end
    }
    session.checkEnd(end)
    if let divergence = session.divergence {
      Loadctl.printErr(ReplaySession.report(divergence, path: path))
      return .exit(ExitStatus.diverged)
    }
    if let until = session.until, session.stoppedEarly {
      // `--until` stopped before whatever the recording holds after it, its end or its cut.
      guard checkOnly else { return .exit(ExitStatus.completed) }
      return printVerdict(
        "replay matches '\(path.escapingControlCharacters)' up to "
          + "\(EventOutput.formatElapsed(until).trimmingSpaces): \(session.matched) events\n")
    }
    let recording = session.recording
    guard recording.end != nil else {
      Loadctl.printErr(
        ErrorLine.text(
          "recording '\(path)' line \(recording.lastLine): it stops before the run's end (the "
            + "run was killed, or the file was cut short); what it holds was replayed"))
      return .exit(ExitStatus.badInput)
    }
    if checkOnly {
      return printVerdict(
        "replay matches '\(path.escapingControlCharacters)': \(session.matched) events, "
          + "the run ended with status \(end.status)\n")
    }
    return .exit(end.status)
  }

  /// Prints `--check`'s verdict and ends with 0, or as a run whose stdout fails does: quietly by
  /// SIGPIPE for a reader that left, else with 74 and its `Error:` line.
  private static func printVerdict(_ text: String) -> ProcessEnd {
    let writer = OutputWriter(fileDescriptor: 1)
    writer.write(text)
    writer.flush()
    guard writer.isBroken else { return .exit(ExitStatus.completed) }
    guard let code = writer.failure, code != EPIPE else { return .brokenPipe }
    Loadctl.printErr(ErrorLine.text(ErrorLine.stdoutFailed(code)))
    return .exit(ExitStatus.ioError)
  }
}
