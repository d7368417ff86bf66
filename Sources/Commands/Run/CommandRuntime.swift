import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs one subcommand's flow as the root of everything: output, signals, shutdown, exit status.
///
/// The flow runs in a task group beside a signal watcher. The first SIGINT/SIGTERM/SIGHUP (or a
/// failed stdout) cancels the flow, which makes its final transitions and returns; then `end` is
/// written and flushed, and the process dies by the same signal, as shells expect. A second
/// signal, or cleanup longer than the deadline, ends it at once (see ``Shutdown``); signals are
/// taken on a thread of their own, so a cooperative pool stuck in blocked writes cannot delay it.
package enum CommandRuntime {
  /// Runs `body` and returns how the process must end.
  /// - Parameters:
  ///   - run: The shared options and the run mode.
  ///   - options: The effective options, echoed in the `start` event.
  ///   - loading: Effect names that mean "loading", for the spinner on an interactive stderr.
  ///   - body: The flow; it returns when it settles or after it was cancelled.
  package static func run(
    _ run: RunOptions, options: [(String, JSONValue)], loading: Set<String> = [],
    body: @escaping @Sendable (RunContext) async -> FlowEnd
  ) async throws(EarlyExit) -> ProcessEnd {
    OutputWriter.ignoreBrokenPipeSignal()
    // The stdout writer is made before the shutdown it reports a broken pipe to.
    let link = Locked<Shutdown?>(nil)
    let stdout = OutputWriter(
      fileDescriptor: run.discardsOutput ? Self.discardDescriptor : 1,
      onBrokenPipe: { link.withLock { $0 }?.request(.brokenPipe) },
      onError: { error in link.withLock { $0 }?.request(.writeFailed(error)) })
    // `replay --check` prints only its verdict (ReplayCommand, on its own): not the replayed
    // run's warnings and rejected lines either.
    let stderr = OutputWriter(fileDescriptor: run.discardsOutput ? Self.discardDescriptor : 2)
    let json = run.json
    let style = run.style
    let mode = run.mode
    let recorder = run.tracePath != nil || run.timeline ? TraceRecorder() : nil
    let traceOutput = TraceOutput(
      recorder: recorder, path: run.tracePath, timeline: run.timeline, width: run.width,
      errors: stderr)
    try Self.checkWrittenFiles(run, command: run.command)
    let recordingFD = try Self.openRecording(run)
    let spinner =
      loading.isEmpty || !mode.showsSpinner || !run.escapesAllowed
      ? nil
      : Spinner(
        isLoading: { loading.contains($0) },
        write: { text in
          stderr.write(text)
          stderr.flush()
        })
    let recordingLink = Locked<RunRecorder?>(nil)
    let shutdown = Shutdown(
      deadline: .seconds(2), flush: { stdout.flush() },
      notice: { reason in
        recordingLink.withLock { $0 }?.shutdown(reason)
        if reason != .quit { run.replay?.interrupt(reason) }
        guard !json, case .signal(let signal) = reason else { return }
        spinner?.clear()
        stderr.write(Self.notice(for: signal) + "\n")
        stderr.flush()
      })
    link.withLock { $0 = shutdown }
    // A reader that leaves while nothing is printed (`| head -n 1` during a slow command) ends
    // the run now, not at its next line.
    let stdoutWatcher = StdoutWatcher.start(fd: 1) { shutdown.request(.brokenPipe) }

    let session = TerminalSession(
      isInteractive: mode.readsKeys && !mode.isReplay,
      interrupt: { shutdown.request(.signal(.interrupt)) }, quit: { shutdown.request(.quit) },
      legend: { legend in
        stderr.write(style.dim(legend) + "\n")
        stderr.flush()
      })
    // A forced exit erases the spinner's frame as every other end does, so the shell's prompt
    // does not land after it.
    shutdown.beforeForcedExit { _ in
      spinner?.clear()
      session.restore(forced: true)
    }
    var hooks = UnixSignals.Hooks()
    hooks.force = { shutdown.request(.signal($0)) }
    hooks.restoreTerminal = {
      spinner?.clear()
      session.restore(forced: true)
    }
    // Each Ctrl-Z and `fg`, marked on the run's time (and recorded) once the run has a context.
    let suspensionMark = Locked<(@Sendable (_ stopped: Bool) -> Void)?>(nil)
    hooks.suspendTerminal = {
      spinner?.clear()
      session.suspend()
      suspensionMark.withLock { $0 }?(true)
    }
    hooks.resumeTerminal = {
      suspensionMark.withLock { $0 }?(false)
      session.resume()
    }
    hooks.resizeTerminal = { session.windowChanged() }
    // SIGQUIT cancels nothing: the recording gets its end, stdout what goes without waiting (a
    // thread in the middle of flushing it gets 100 ms to let go), and the trace file what a
    // forced exit writes.
    let flushAtOnce: @Sendable () -> Void = {
      OutputWriter.enterForcedExit()
      for _ in 0..<100 {
        if stdout.flush() { break }
        usleep(1000)
      }
      shutdown.sayLastWords(dyingBy: .quit)
    }
    hooks.quit = {
      guard let recording = recordingLink.withLock({ $0 }) else { return flushAtOnce() }
      recording.endAtOnce(by: .quit) {
        flushAtOnce()
        UnixSignals.die(by: .quit)
      }
    }
    UnixSignals.setHooks(hooks)
    let replay = run.replay
    let virtualClock = replay?.clock ?? VirtualClock()
    var clock: any Clock<Duration>
    let clockElapsed: @Sendable () -> Duration
    if mode.isVirtual {
      clock = virtualClock
      clockElapsed = { min(virtualClock.now.offset, Self.latestTime) }
    } else {
      let continuous = ContinuousClock()
      let start = continuous.now
      clock = continuous
      clockElapsed = { start.duration(to: continuous.now) }
    }
    if let recorder { clock = recorder.tracing(clock, elapsed: clockElapsed) }
    let recording = recordingFD.map { fd in
      RunRecorder(path: run.recordPath ?? "", fd: fd, elapsed: clockElapsed)
    }
    // Recorded, every event carries its happening's time, as its replay prints it.
    let elapsed = recording?.elapsed ?? clockElapsed
    if let recording { shutdown.beforeForcedExit { recording.endAtOnce(by: $0) } }
    let output = EventOutput(
      command: run.command, json: json, quiet: run.quiet, style: style,
      writer: stdout, elapsed: elapsed,
      tap: Self.tap(recorder: recorder, spinner: spinner),
      lines: Self.printedEventSink(recording: recording, replay: replay))
    shutdown.beforeForcedExit { _ in traceOutput.write(at: elapsed(), forced: true) }
    let context = RunContext(
      output: output, clock: clock, elapsed: elapsed, errors: stderr, mode: mode, terminal: session,
      lints: run.lints, recorder: recording, replay: replay)
    if replay == nil {
      suspensionMark.withLock { mark in
        mark = { [suspensions = context.suspensions] stopped in
          let note = {
            let now = elapsed()
            if stopped { suspensions.suspend(at: now) } else { suspensions.resume(at: now) }
          }
          guard let recording else { return note() }
          recording.suspended(stopped, note)
        }
      }
    }
    // The process lints come from the runners' reader threads, for as long as this run lasts.
    Subprocesses.observe { [warnings = context.warnings] notice in
      warnings.raise(LintWarning(notice))
    }
    defer { Subprocesses.observe(nil) }

    // Armed before anything is printed: a signal sent as soon as output appears is never lost.
    let signals = UnixSignals(UnixSignal.stopping).watch()
    // A replay's `start` says what the recorded run's said.
    let startedAt =
      replay?.recording.header.startedAt
      ?? (mode.isVirtual ? WallClock.virtualEpoch : WallClock.now())
    let clockName = replay?.recording.header.clock ?? (mode.isVirtual ? "virtual" : "continuous")
    if let recording {
      recording.header([
        ("loadctl_version", .string(CommandTable.version)), ("command", .string(run.command)),
        ("arguments", .array(RecordedArguments.redacted(run.arguments).map(JSONValue.string))),
        ("clock", .string(clockName)), ("started_at", .string(startedAt)),
        ("json", .bool(json)), ("stdin_terminal", .bool(mode.terminals.stdin)),
        ("stdout_terminal", .bool(mode.terminals.stdout)), ("options", .object(options)),
      ])
      recordingLink.withLock { $0 = recording }
    }
    RecordedTime.withValue(recording.map { _ in .zero }) {
      output.emit(
        "start",
        CommandTable.versionFields + [
          ("started_at", .string(startedAt)), ("clock", .string(clockName)),
          ("options", .object(options)),
        ],
        text: nil)
    }
    let end: FlowEnd
    if mode.isVirtual {
      // The root of a virtual run must live on the manual executor, and a task is the only way
      // to put it there. It is driven to completion right here, before this function goes on.
      let result = Locked<FlowEnd?>(nil)
      output.flushedWhenIdle()
      let root = virtualClock.launch {
        let end = await runRoot(
          context: context, signals: signals, shutdown: shutdown, spinner: nil, body: body)
        result.withLock { $0 = end }
      }
      let pastRange = VirtualDriver.run(
        clock: virtualClock,
        onIdle: {
          output.flush()
          recording?.flush()
        }
      ) {
        result.withLock { $0 != nil }
      }
      _ = root
      if let pastRange {
        session.restore()
        context.error(
          "the run's next wait ends \(formatDuration(pastRange)) after its start, past the "
            + "2^63 ns (about 292 years) virtual time can reach: stopped at "
            + "\(formatDuration(virtualClock.now.offset))")
        _ = writeTrace(traceOutput, context: context)
        return .exit(ExitStatus.badInput)
      }
      end = result.withLock { $0 } ?? FlowEnd(status: .completed)
    } else if let executor = RunExecutor(onIdle: {
      output.flush()
      recording?.flush()
    }) {
      output.flushedWhenIdle()
      end = await withTaskExecutorPreference(executor) {
        await runRoot(
          context: context, signals: signals, shutdown: shutdown, spinner: spinner, body: body)
      }
    } else {
      // No thread for the run's executor: nothing flushes when the run waits, so every event is
      // flushed as it is written (`holdingFlushes` holds nothing).
      end = await runRoot(
        context: context, signals: signals, shutdown: shutdown, spinner: spinner, body: body)
    }
    session.restore()
    stdoutWatcher?.stop()
    if let replay, let reason = replay.interruption {
      // The replay itself was stopped from outside: it ends as a run stopped that way, with
      // nothing past what it replayed.
      output.flush()
      _ = writeTrace(traceOutput, context: context)
      switch reason {
      case .signal(let signal): return .signal(signal)
      case .brokenPipe: return .brokenPipe
      case .writeFailed(let code):
        context.error(ErrorLine.stdoutFailed(code))
        return .exit(ExitStatus.ioError)
      case .quit: return .exit(ExitStatus.completed)
      }
    }
    if let replay, replay.stoppedEarly || replay.failure != nil || replay.recording.end == nil {
      // `replay --until`: the run stopped where it was asked to, with its state printed; or
      // the recording could not be applied, which the replay reports itself.
      output.flush()
      let written = writeTrace(traceOutput, context: context)
      return .exit(written ? ExitStatus.completed : ExitStatus.ioError)
    }
    if let replay, let recorded = replay.recording.end, recorded.diedAtOnce {
      // The recorded run died at once after what it printed (SIGQUIT, a forced exit): no `end`
      // to print.
      output.flush()
      guard writeTrace(traceOutput, context: context) else { return .exit(ExitStatus.ioError) }
      return .signal(recorded.unixSignal ?? .quit)
    }
    let processEnd = RecordedTime.withValue(recording?.lastTime) {
      finish(
        end, context: context, shutdown: shutdown.settle() ?? replay?.shutdown, trace: traceOutput,
        stdout: stdout)
    }
    guard let recording else { return processEnd }
    recording.end(processEnd)
    guard let problem = recording.finish() else { return processEnd }
    context.error(problem)
    return .exit(ExitStatus.ioError)
  }

  /// The latest time a run's events carry, 2^63 - 1 ns (about 292 years): what a recording's
  /// integer nanoseconds hold, and past it `Duration.components`' seconds would overflow. A run on
  /// virtual time that goes on beyond it (`+1000000000s` lines, a million retries) prints it
  /// from then on, recorded or not.
  static let latestTime = Duration.nanoseconds(Int64.max)

  /// `/dev/null`, for `loadctl replay --check`, whose events are checked, not printed.
  private static let discardDescriptor: Int32 = {
    let fd = open("/dev/null", O_WRONLY | O_CLOEXEC)
    return fd >= 0 ? fd : 1
  }()

  /// Opens `--record FILE`, if given: a path that cannot be written is bad input (65), as an
  /// input file that cannot be read.
  private static func openRecording(_ run: RunOptions) throws(EarlyExit) -> Int32? {
    guard let path = run.recordPath else { return nil }
    switch RunRecorder.openFile(path: path) {
    case .success(let fd): return fd
    case .failure(let problem):
      throw Loadctl.fail(badInput: problem.message, command: run.command, json: run.json)
    }
  }

  /// What the person sees on stderr when `signal` starts the shutdown.
  static func notice(for signal: UnixSignal) -> String {
    switch signal {
    case .interrupt: "interrupted — cancelling (Ctrl-C again to force)"
    case .hangup: "hangup — cancelling (a second signal forces the exit)"
    default: "terminated — cancelling (a second signal forces the exit)"
    }
  }

  /// `LOADCTL_TEST_CLEANUP_DELAY`, a duration: see `runRoot`.
  private static let testCleanupDelay: Duration? = {
    guard let text = getenv("LOADCTL_TEST_CLEANUP_DELAY") else { return nil }
    return parseDuration(String(cString: text))
  }()

  /// The event tap that feeds a trace recorder and the spinner, if either is on.
  /// Who sees each printed event's JSON line: the recording, or a replay's check. A closure that
  /// calls the method, not the method itself: a method reference would go through two
  /// reabstraction thunks for every event.
  private static func printedEventSink(
    recording: RunRecorder?, replay: ReplaySession?
  ) -> (@Sendable (PrintedEvent) -> Void)? {
    if let recording { return { recording.event($0) } }
    if let replay { return { replay.check($0) } }
    return nil
  }

  private static func tap(recorder: TraceRecorder?, spinner: Spinner?)
    -> (@Sendable (ObservedEvent, [(String, JSONValue)], Duration) -> Void)?
  {
    guard recorder != nil || spinner != nil else { return nil }
    return { event, fields, time in
      recorder?.observe(event, args: fields, at: time)
      spinner?.observe(event)
    }
  }

  private static func runRoot(
    context: RunContext, signals: AsyncStream<UnixSignal>, shutdown: Shutdown, spinner: Spinner?,
    body: @escaping @Sendable (RunContext) async -> FlowEnd
  ) async -> FlowEnd {
    await withTaskGroup(of: FlowEnd?.self) { outer in
      if let spinner {
        // Display only, on real time (the spinner is off in virtual mode and for pipes).
        outer.addTask {
          await spinner.run(clock: ContinuousClock())
          return nil
        }
      }
      outer.addTask {
        for await signal in signals {
          shutdown.request(.signal(signal))
        }
        return nil
      }
      let end = await withTaskGroup(of: FlowEnd?.self) { inner in
        inner.addTask {
          let end = await body(context)
          if shutdown.reason != nil, let delay = testCleanupDelay {
            // Test-only hook (LOADCTL_TEST_CLEANUP_DELAY): cleanup that is slow on purpose and
            // ignores cancellation, so tests can prove that a second signal, or the cleanup
            // deadline, does not wait for it. It waits on a thread of its own: the run's
            // executor stays free to flush what the flow printed.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
              let started = ReaderThread.start {
                let until = ContinuousClock.now + delay
                while ContinuousClock.now < until { usleep(10_000) }
                done.resume()
              }
              if !started { done.resume() }
            }
          }
          return end
        }
        inner.addTask {
          _ = await shutdown.wait()
          return nil
        }
        var end: FlowEnd?
        for await value in inner {
          if let value { end = value }
          inner.cancelAll()
        }
        return end
      }
      outer.cancelAll()
      return end ?? FlowEnd(status: .completed)
    }
  }

  private static func finish(
    _ end: FlowEnd, context: RunContext, shutdown: ShutdownReason?, trace: TraceOutput,
    stdout: OutputWriter
  ) -> ProcessEnd {
    let output = context.output
    if shutdown == .brokenPipe {
      _ = writeTrace(trace, context: context)
      return .brokenPipe
    }
    if case .writeFailed(let code) = shutdown {
      // A replay gets here by the recorded run's failure, not its own: it ends with the run's
      // status and, as for the run's other stderr notices, without its message.
      if context.replay == nil {
        context.error(ErrorLine.stdoutFailed(code))
      }
      _ = writeTrace(trace, context: context)
      return .exit(ExitStatus.ioError)
    }
    var code: Int32
    let reason: String
    if case .signal(let signal) = shutdown {
      code = signal.shellStatus
      reason = shutdown?.endReason ?? "interrupted"
    } else if context.rejectedCount > 0 {
      code = ExitStatus.badInput
      reason = end.status == .failed ? "failed" : "completed"
    } else {
      // A denied lint turns what would have been a clean end into its own status.
      code =
        end.status == .failed
        ? ExitStatus.failed
        : context.warnings.denied ? ExitStatus.lintDenied : ExitStatus.completed
      if let status = end.exitStatus { code = status }
      reason = end.status == .failed ? "failed" : "completed"
    }
    var extra: [(String, JSONValue)] = []
    if context.rejectedCount > 0 { extra.append(("rejected_lines", .int(context.rejectedCount))) }
    let warnings = context.warnings.counts
    if !warnings.isEmpty {
      extra.append(("warnings", .object(warnings.map { ($0.name, .int($1)) })))
    }
    extra += end.fields
    // The recording so far is flushed, and the trace (which holds `end`) written, before `end`
    // is printed, so that `end` does not say a status the process does not exit with: a
    // recording or a trace that could not be written makes it 74. (A recording whose last write
    // or close fails, after `end`, still ends 74 with its `Error:` line, as stdout does.) A
    // trace into a FIFO is written after `end`, as its reader may wait for `end` to open it.
    var diesBySignal = false
    if case .signal = shutdown { diesBySignal = true }
    context.recorder?.flush()
    if context.recorder?.hasFailed == true, !diesBySignal { code = ExitStatus.ioError }
    let traceFirst = !trace.isFIFO
    if traceFirst {
      output.observe(
        "end", [("reason", .string(reason)), ("exit_code", .int(Int(code)))] + extra)
      if !writeTrace(trace, context: context, timeline: false), !diesBySignal {
        code = ExitStatus.ioError
      }
    }
    let text = end.summary.map { summary in
      reason == "completed" ? summary : "\(summary)  (\(reason))"
    }
    output.emit(
      "end", [("reason", .string(reason)), ("exit_code", .int(Int(code)))] + extra, kind: .result,
      text: text, tapped: !traceFirst)
    output.flush()
    if !traceFirst, !writeTrace(trace, context: context, timeline: false), !diesBySignal {
      code = ExitStatus.ioError
    }
    trace.drawTimeline(at: context.elapsed())
    if case .signal(let signal) = shutdown { return .signal(signal) }
    if let failure = stdout.failure, failure != EPIPE {
      // `end` itself could not be written (e.g. the disk filled up just now).
      context.error(ErrorLine.stdoutFailed(failure))
      return .exit(ExitStatus.ioError)
    }
    return .exit(code)
  }

  /// Writes the trace file and, unless `timeline` is `false`, draws the timeline. A file that
  /// could not be written is said on stderr (a replay's own, even under `--check`).
  /// - Returns: Whether the trace file, if any, was written.
  private static func writeTrace(
    _ trace: TraceOutput, context: RunContext, timeline: Bool = true
  ) -> Bool {
    let problem = trace.writeFile(at: context.elapsed())
    if timeline { trace.drawTimeline(at: context.elapsed()) }
    guard let problem else { return true }
    if let replay = context.replay {
      // The replay's own output failed: it ends as a run whose output failed, 74, and says so
      // on its own stderr, which `--check` keeps.
      replay.ownOutputFailed(problem)
    } else {
      context.error(problem)
    }
    return false
  }
}
