import LoadctlCore

/// `--watch PATH`, `--watch-settle`, `--ignore GLOB`: the options of every flow a file change
/// can drive, declared once, read and checked once.
package struct WatchOptions: Sendable {
  static let watch = OptionKey.values(
    "watch", .file, valueName: "PATH",
    help: "Watch PATH (a directory, with everything under it, or a file); a change there is "
      + "an input action. Repeatable.")
  static let settle = OptionKey.value(
    "watch-settle", .duration,
    help: "A change is an action at once; those within this long after it are one more at "
      + "its end, so a burst of them is one action or two.", default: "50ms")
  static let ignore = OptionKey.values(
    "ignore", .string, valueName: "GLOB",
    help: "Leave out of --watch the names and paths that match GLOB (.git and .build always "
      + "are). Repeatable.")

  /// The keys, for a command's table.
  static let keys: [any OptionKeyProtocol] = [watch, settle, ignore]

  /// The paths watched.
  let paths: [String]
  let settle: Duration
  let ignore: [String]

  /// Reads the options; `nil` without `--watch`.
  /// - Throws: `UsageError` for `--watch-settle` or `--ignore` without `--watch`, or `--watch`
  ///   on virtual time; a bad-input ``EarlyExit`` (65) for a path that does not exist.
  static func read(_ invocation: Invocation, _ run: RunOptions, command: String)
    throws(EarlyExit) -> WatchOptions?
  {
    let paths = invocation[watch]
    guard !paths.isEmpty else {
      for key in [settle, ignore] as [any OptionKeyProtocol] where invocation.isGiven(key) {
        throw Loadctl.fail(
          usage: .invalidValue("'--\(key.spec.name)' only applies to '--watch'", command: command),
          json: run.json)
      }
      return nil
    }
    do throws(UsageError) {
      try ExternalCommand.requireRealTime("--watch", mode: run.mode, command: command)
    } catch {
      throw Loadctl.fail(usage: error, json: run.json)
    }
    // A replay watches nothing: its changes come from the recording.
    if !run.mode.isReplay, let missing = FileWatcher.missing(paths) {
      throw Loadctl.fail(badInput: missing.message, command: run.command, json: run.json)
    }
    return WatchOptions(paths: paths, settle: invocation[settle], ignore: invocation[ignore])
  }

  /// What the `start` event echoes.
  var startFields: [(String, JSONValue)] {
    [
      ("watch", .array(paths.map(JSONValue.string))),
      ("watch_settle_ms", .double(EventOutput.milliseconds(settle))),
      ("ignore", .array(ignore.map(JSONValue.string))),
    ]
  }

  /// Starts the watcher; `nil` in a replay, which watches nothing.
  /// - Returns: The watcher, or how the process ends when it cannot start: one `Error:` line
  ///   and 65 for a path gone since the options were read, 71 when the system cannot give the
  ///   watches (`fs.inotify.max_user_watches`).
  func start(for run: RunOptions) -> Result<FileWatcher?, Failure> {
    guard !run.mode.isReplay else { return .success(nil) }
    do throws(FileWatcher.Failure) {
      return .success(try FileWatcher(paths: paths, ignoring: ignore))
    } catch {
      Loadctl.printErr(ErrorLine.text(error.message))
      if case .missing = error { return .failure(Failure(end: .exit(ExitStatus.badInput))) }
      return .failure(Failure(end: .exit(ExitStatus.systemError)))
    }
  }

  /// A watcher that could not start, and how the process ends.
  struct Failure: Error {
    let end: ProcessEnd
  }
}
