import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A recording read back for `loadctl replay`: its header, what entered the flow in order with
/// its times, the events the run printed, and how it ended (docs/recording.md).
///
/// Reading checks every line: a line longer than ``RunRecorder/maxLineBytes``, one that is not
/// one JSON object of a known kind, a time that goes back, or a header of a later format is
/// refused with the line's number. A last line without its newline (a run killed while writing
/// it) is not data and is left out.
package struct Recording: Sendable {
  /// What the header says about the run.
  package struct Header: Sendable {
    package var loadctlVersion: String
    package var command: String
    /// The command line after the program's name, redacted.
    package var arguments: [String]
    /// `continuous` or `virtual`.
    package var clock: String
    package var startedAt: String
    /// The format (`loadctl_recording`): 1 wrote every event whole, 2 leaves out what a replay
    /// knows (`RunRecorder.event(_:)`).
    package var format: Int
    /// Whether the run's stdin was a terminal, which decides how its options are read (keys,
    /// where no query or script was given).
    package var stdinTerminal = false
  }

  /// One thing that entered the run, or that the run's outside did, at a time.
  package enum Entry: Sendable {
    /// A store happening, as its recording line's object (decoded by the flow's action type).
    case happening(JSONValue)
    /// The store's closing reports (the effects cancelled with the run).
    case closing
    /// A lint raised outside the flow's steps.
    case warning(LintWarning)
    /// A rejected input line.
    case rejected(InputError)
    /// The run was being stopped from outside.
    case shutdown(ShutdownReason)
    /// The flow's deadline ended the run.
    case deadline
    /// The run was suspended by Ctrl-Z (`true`) or continued by `fg` (`false`).
    case suspended(Bool)
    /// What the flow's own feed reported when it stopped (the ticker's).
    case feed(JSONValue)
  }

  /// An entry with its time on the run's clock and its line in the file.
  package struct Timed: Sendable {
    package var time: Duration
    package var entry: Entry
    package var line: Int
  }

  /// One printed event: its JSON line, as the run printed it with `--json` (rebuilt whole from a
  /// format-2 line).
  package struct Event: Sendable {
    package var bytes: [UInt8]
    package var line: Int
  }

  /// How the recorded process ended.
  package struct End: Sendable, Equatable {
    package var exit: Int32
    /// The signal it died by, if it did (`SIGINT`).
    package var signal: String?
    /// Written `"at_once":true`: a forced exit (a second Ctrl-C, the cleanup deadline).
    package var atOnce = false

    /// Whether the process died at once (SIGQUIT, or a forced exit), cancelling nothing: after
    /// its last happening, nothing more happened in the flow, and it printed no `end`.
    package var diedAtOnce: Bool { atOnce || signal == UnixSignal.quit.description }

    /// The signal it died by, when it is one a run stops by or SIGQUIT.
    package var unixSignal: UnixSignal? {
      (UnixSignal.stopping + [.quit]).first { $0.description == signal }
    }
  }

  package var path: String
  package var header: Header
  package var entries: [Timed]
  package var events: [Event]
  /// `nil` when the recording stops before the run's end (killed, or cut short).
  package var end: End?
  /// The number of the last line read.
  package var lastLine: Int

  /// A problem with the file, naming where it is.
  package struct Problem: Error, Sendable {
    package let message: String
  }

  /// Reads and checks the recording at `path`, a regular file. Anything else is refused before
  /// it is read: a FIFO would block the replay until a writer came, and a device (`/dev/zero`)
  /// never ends.
  package static func load(path: String) -> Result<Recording, Problem> {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return .failure(cannotRead(path, errno)) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      let what =
        status.st_mode & S_IFMT == S_IFDIR
        ? "it is a directory" : "it is not a regular file (a FIFO or a device never ends)"
      return .failure(Problem(message: "cannot read recording '\(path)': \(what)"))
    }
    do throws(Problem) {
      return .success(try parse(path: path) { read(fd, $0.baseAddress, $0.count) })
    } catch {
      return .failure(error)
    }
  }

  /// Parses a recording's bytes (`path` only names it in messages).
  package static func parse(_ bytes: [UInt8], path: String) throws(Problem) -> Recording {
    var offset = 0
    return try parse(path: path) { buffer in
      let count = min(buffer.count, bytes.count - offset)
      bytes.withUnsafeBytes {
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count]))
      }
      offset += count
      return count
    }
  }

  /// Parses a recording whose bytes `read` gives, as `read(2)` does: into the buffer, the
  /// number of bytes, 0 at the end, -1 with `errno` set. A line is read a chunk at a time and
  /// refused as soon as it grows past ``RunRecorder/maxLineBytes``, never held whole.
  package static func parse(
    path: String, read: @escaping (UnsafeMutableRawBufferPointer) -> Int
  ) throws(Problem) -> Recording {
    var lines = Lines(path: path, read: read)
    guard let first = try lines.next() else {
      throw Problem(
        message: lines.torn
          ? "recording '\(path)' line 1: the header is cut short (no newline after it)"
          : "recording '\(path)' is empty: it holds no header line")
    }
    func fail(_ line: Int, _ message: String) -> Problem {
      Problem(message: "recording '\(path)' line \(line): \(message)")
    }
    func object(_ bytes: ArraySlice<UInt8>, line: Int) throws(Problem) -> JSONValue {
      let value: JSONValue
      do throws(JSONParser.Failure) {
        value = try JSONParser.parse(bytes: Array(bytes), maxDepth: Self.maxDepth, uniqueKeys: true)
      } catch {
        throw fail(
          line,
          error.reason.hasPrefix("duplicate key") ? error.reason : "not JSON (\(error.reason))")
      }
      guard case .object = value else { throw fail(line, "not a JSON object") }
      return value
    }
    let header = try readHeader(object(first, line: 1), fail: { fail(1, $0) })
    var recording = Recording(
      path: path, header: header, entries: [], events: [], end: nil, lastLine: 1)
    var last = Duration.zero
    while let text = try lines.next() {
      let line = lines.number
      recording.lastLine = line
      guard recording.end == nil else { throw fail(line, "a line after the run's end") }
      let value = try object(text, line: line)
      if value["out"] != nil {
        let bytes = try printedLine(
          value, number: recording.events.count + 1, time: last, header: header,
          fail: { fail(line, $0) })
        recording.events.append(Event(bytes: bytes, line: line))
        continue
      }
      if let end = value["end"] {
        recording.end = try readEnd(end, fail: { fail(line, $0) })
        continue
      }
      let nanoseconds: Int
      switch value["t"] {
      case .int(let time)? where time >= 0: nanoseconds = time
      case nil: throw fail(line, "no 't' (a time in nanoseconds), 'out' or 'end'")
      case .int(let time)?: throw fail(line, "'t' is negative (\(time) ns)")
      case .double(let time)?: throw fail(line, "'t' is \(time), not a whole number of nanoseconds")
      case let time?:
        throw fail(
          line, "'t' must be a whole number of nanoseconds, not \(RecordedFields.kind(of: time))")
      }
      let time = Duration.nanoseconds(nanoseconds)
      guard time >= last else { throw fail(line, "its time goes back (\(nanoseconds) ns)") }
      last = time
      let entry = try readEntry(value, fail: { fail(line, $0) })
      recording.entries.append(Timed(time: time, entry: entry, line: line))
    }
    return recording
  }

  /// The line the run printed for an `out` line (`{"out":EVENT}`): in format 1 `EVENT` as it
  /// is; in format 2 `EVENT` after the members every event starts with, which the reader knows
  /// — `seq` (`number`), `elapsed_ms` (the line's own `elapsed_ms` if it has one, else `time`,
  /// the happening before it) and `command` (the header's).
  private static func printedLine(
    _ value: JSONValue, number: Int, time: Duration, header: Header,
    fail: (String) -> Problem
  ) throws(Problem) -> [UInt8] {
    guard case .object(let pairs)? = value["out"] else {
      throw fail("'out' is not an event object")
    }
    guard header.format >= 2 else { return Array(JSONValue.object(pairs).serialized.utf8) }
    guard case .object(let members) = value,
      members.allSatisfy({ $0.0 == "out" || $0.0 == "elapsed_ms" })
    else { throw fail("an 'out' line holds nothing but 'out' and 'elapsed_ms'") }
    if let shared = pairs.first(where: { Self.sharedMembers.contains($0.0) }) {
      throw fail("'out' holds '\(shared.0)', which a format-2 recording leaves out")
    }
    let elapsed: JSONValue
    switch value["elapsed_ms"] {
    case nil: elapsed = .double(EventOutput.milliseconds(time))
    case .int(let milliseconds)?: elapsed = .int(milliseconds)
    case .double(let milliseconds)?: elapsed = .double(milliseconds)
    case let other?:
      throw fail("'elapsed_ms' is \(RecordedFields.kind(of: other)), not a number")
    }
    let line = JSONValue.object(
      [("seq", .int(number)), ("elapsed_ms", elapsed), ("command", .string(header.command))]
        + pairs)
    return Array(line.serialized.utf8)
  }

  /// What every printed event starts with, which a format-2 `out` leaves out.
  private static let sharedMembers: Set<String> = ["seq", "elapsed_ms", "command"]

  /// The signals a recorded run can have died by, each with its status (128 + its number).
  private static let deathSignals: [String: Int32] = Dictionary(
    uniqueKeysWithValues: (UnixSignal.stopping + [.quit]).map { ($0.description, $0.shellStatus) }
      + [("SIGPIPE", 128 + SIGPIPE)])

  /// `{"exit":N}` (0–255), or `{"signal":NAME,"exit":128+n}` for a signal a run dies by.
  private static func readEnd(_ end: JSONValue, fail: (String) -> Problem) throws(Problem) -> End {
    guard case .int(let exit)? = end["exit"], let status = Int32(exactly: exit),
      (0...255).contains(status)
    else { throw fail("'end' has no 'exit' status from 0 to 255") }
    switch end["signal"] {
    case nil:
      return End(exit: status, signal: nil)
    case .string(let name)?:
      guard let expected = deathSignals[name] else {
        let names = deathSignals.keys.sorted().joined(separator: ", ")
        throw fail("'end' names signal '\(name)', not one a run dies by (\(names))")
      }
      guard status == expected else {
        throw fail("'end' says \(name) with exit \(status); a death by \(name) is \(expected)")
      }
      switch end["at_once"] {
      case nil: return End(exit: status, signal: name)
      case .bool(true)?: return End(exit: status, signal: name, atOnce: true)
      default: throw fail("'at_once' must be true")
      }
    default:
      throw fail("'end' has a 'signal' that is not a name")
    }
  }

  private static func readHeader(
    _ value: JSONValue, fail: (String) -> Problem
  ) throws(Problem) -> Header {
    guard case .int(let version)? = value["loadctl_recording"] else {
      throw fail("not a loadctl recording (no 'loadctl_recording' header)")
    }
    guard version <= RunRecorder.formatVersion, version >= 1 else {
      throw fail(
        "recording format \(version) is not one this loadctl reads (it reads "
          + "\(RunRecorder.formatVersion)); replay it with the loadctl that made it")
    }
    guard case .string(let command)? = value["command"],
      case .array(let arguments)? = value["arguments"],
      case .string(let clock)? = value["clock"], case .string(let startedAt)? = value["started_at"],
      case .string(let loadctlVersion)? = value["loadctl_version"]
    else {
      throw fail("the header lacks 'command', 'arguments', 'clock', 'started_at' or its version")
    }
    guard clock == "continuous" || clock == "virtual" else {
      throw fail("'clock' must be \"continuous\" or \"virtual\"")
    }
    var words: [String] = []
    for argument in arguments {
      guard case .string(let word) = argument else { throw fail("an argument is not a string") }
      words.append(word)
    }
    var header = Header(
      loadctlVersion: loadctlVersion, command: command, arguments: words, clock: clock,
      startedAt: startedAt, format: version)
    switch value["stdin_terminal"] {
    case nil: break
    case .bool(let terminal)?: header.stdinTerminal = terminal
    default: throw fail("'stdin_terminal' must be true or false")
    }
    return header
  }

  private static func readEntry(
    _ value: JSONValue, fail: (String) -> Problem
  ) throws(Problem) -> Entry {
    if let closing = value["closing"] {
      guard closing == .bool(true) else { throw fail("'closing' must be true") }
      return .closing
    }
    if let deadline = value["deadline"] {
      guard deadline == .bool(true) else { throw fail("'deadline' must be true") }
      return .deadline
    }
    if let suspended = value["suspended"] {
      guard case .bool(let stopped) = suspended else {
        throw fail("'suspended' must be true or false")
      }
      return .suspended(stopped)
    }
    if let feed = value["feed"] { return .feed(feed) }
    if let warning = value["warning"] {
      guard case .string(let name)? = warning["lint"], let lint = Lint(named: name),
        case .string(let subject)? = warning["subject"],
        case .string(let message)? = warning["message"]
      else { throw fail("a 'warning' needs a known 'lint', a 'subject' and a 'message'") }
      return .warning(LintWarning(lint, subject: subject, message: message))
    }
    if let rejected = value["rejected"] {
      guard case .int(let number)? = rejected["line"],
        case .string(let message)? = rejected["message"]
      else { throw fail("'rejected' needs a 'line' and a 'message'") }
      return .rejected(InputError(line: number, message: message))
    }
    if let shutdown = value["shutdown"] {
      guard let reason = ShutdownReason(recorded: shutdown) else {
        throw fail("unknown 'shutdown' reason \(shutdown.serialized)")
      }
      return .shutdown(reason)
    }
    return .happening(value)
  }

  /// How deep a recording line may nest: a profile as deep as a run reads one (`JSONParser`'s
  /// default, 64) sits a few levels down in its line (`out` → `to` → `profile`, or `action` →
  /// `fields`), and the run that printed it must replay.
  static let maxDepth = 64 + 8

  private static func cannotRead(_ path: String, _ code: Int32) -> Problem {
    Problem(message: "cannot read recording '\(path)': \(InputFile.describeErrno(code))")
  }

  /// A recording's complete lines, read a chunk at a time; the piece after the last newline
  /// (empty, or a line torn by a kill) is never one.
  private struct Lines {
    let path: String
    let read: (UnsafeMutableRawBufferPointer) -> Int
    /// The bytes read and not yet given: from `start`, the rest of a chunk and the start of a
    /// line, at most ``RunRecorder/maxLineBytes`` and a chunk.
    private var pending: [UInt8] = []
    private var start = 0
    /// `pending[start..<scanned]` holds no newline.
    private var scanned = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var atEnd = false
    /// The number of the last line given.
    private(set) var number = 0

    init(path: String, read: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
      self.path = path
      self.read = read
    }

    /// Whether the file ends with a piece that has no newline.
    var torn: Bool { atEnd && start < pending.count }

    /// The next complete line, without its newline; `nil` at the end.
    /// - Throws: ``Problem`` for a line longer than ``RunRecorder/maxLineBytes`` and for a
    ///   read that fails.
    mutating func next() throws(Problem) -> ArraySlice<UInt8>? {
      while true {
        if let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
          let line = pending[start..<newline]
          try check(line.count)
          number += 1
          (start, scanned) = (newline + 1, newline + 1)
          return line
        }
        scanned = pending.count
        try check(pending.count - start)
        guard !atEnd else { return nil }
        if start > 0 {
          pending.removeSubrange(..<start)
          (start, scanned) = (0, pending.count)
        }
        let read = self.read
        let count = chunk.withUnsafeMutableBytes { read($0) }
        if count < 0 {
          guard errno == EINTR else { throw cannotRead(path, errno) }
          continue
        }
        atEnd = count == 0
        pending += chunk[..<count]
      }
    }

    /// Refuses the next line when it holds `count` bytes, more than a recording's line does.
    private func check(_ count: Int) throws(Problem) {
      guard count > RunRecorder.maxLineBytes else { return }
      throw Problem(
        message: "recording '\(path)' line \(number + 1): longer than "
          + "\(RunRecorder.maxLineBytes >> 20) MiB: not a line loadctl wrote")
    }
  }
}

extension ShutdownReason {
  /// Reads what ``recorded`` wrote.
  package init?(recorded value: JSONValue) {
    switch value {
    case .string("broken_pipe"): self = .brokenPipe
    case .string("quit"): self = .quit
    case .string(let name):
      guard let signal = UnixSignal.handled.first(where: { $0.description == name }) else {
        return nil
      }
      self = .signal(signal)
    case .object:
      guard case .int(let code)? = value["write_failed"], let errno = Int32(exactly: code) else {
        return nil
      }
      self = .writeFailed(errno)
    default: return nil
    }
  }
}

extension StoreHappening where Action: RecordableAction {
  /// Reads a happening's recording line (see ``recorded``).
  package static func fromRecorded(_ value: JSONValue) -> Result<Self, LineProblem> {
    if let input = value["input"] { return Action.fromRecorded(input).map { .input($0) } }
    if let finished = value["input_finished"] {
      guard finished == .bool(true) else {
        return .failure(LineProblem("'input_finished' must be true"))
      }
      return .success(.inputFinished)
    }
    if let cancelled = value["cancelled"] {
      guard cancelled == .bool(true) else {
        return .failure(LineProblem("'cancelled' must be true"))
      }
      return .success(.cancelled)
    }
    if case .string(let id)? = value["cancel_request"] {
      return .success(.cancelRequest(EffectID(id)))
    }
    guard case .int(let serial)? = value["effect"] else {
      return .failure(LineProblem("not a happening this loadctl knows"))
    }
    if let action = value["action"] {
      guard value["finished"] == nil else {
        return .failure(LineProblem("effect \(serial) has both an 'action' and 'finished'"))
      }
      return Action.fromRecorded(action).map { .effectAction($0, serial: serial) }
    }
    switch value["finished"] {
    case .string("finished")?: return .success(.effectFinished(serial: serial, .finished))
    case .string("cancelled")?: return .success(.effectFinished(serial: serial, .cancelled))
    case .object(let pairs)?:
      if let (_, message) = pairs.first(where: { $0.0 == "failed" }),
        case .string(let text) = message
      {
        return .success(.effectFinished(serial: serial, .failed(text)))
      }
      return .failure(LineProblem("effect \(serial)'s end is not finished, cancelled or failed"))
    default:
      return .failure(LineProblem("effect \(serial) has neither an 'action' nor 'finished'"))
    }
  }
}
