import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--exec CMD`: a command's stdout lines as a live feed, the command owned by the producer.
///
/// The producer runs the command through Core's ``Subprocess`` and yields each line's price into
/// the stream as it is read; the lines follow the `--from` grammar (``InputLine`` prefixes, then
/// ``PriceLine``), and bad ones (not a price, not UTF-8, longer than
/// ``LineSource/maxLineLength``) are reported through `reject` and skipped. The command's
/// lifetime is the producer's:
///
/// - the consumer finished (`--count`, Ctrl-C, a closed stdout): the producer is cancelled, and
///   the command's process group is torn down (SIGTERM, `killAfter`, SIGKILL) and reaped before
///   `produce` returns, so `producer_stopped` is printed when no process of it is left;
/// - the command's stdout ended: the feed ends; a command still running then (it closed stdout,
///   `exec >&-`) is torn down the same way, which is not a failure;
/// - the command exited non-zero or was killed by a signal other than that teardown's SIGTERM or
///   SIGKILL: the feed ends with ``PriceFeedEnd/failed(_:)``, `command failed (exit status 3):
///   <its last stderr line>`; so does a command that cannot start. A command killed by anyone
///   else (`kill -KILL` of its group from outside) failed, whichever signal it was.
package struct ExecPriceLines: LivePriceSource {
  /// The command, with its teardown grace.
  package let subprocess: Subprocess
  private let clock: any Clock<Duration>
  private let elapsed: @Sendable () -> Duration
  private let reject: @Sendable (InputError) -> Void

  /// - Parameters:
  ///   - subprocess: The command, e.g. `ExternalCommand.shell(cmd, killAfter:)`.
  ///   - clock: The run's clock; `+DURATION`/`@DURATION` prefixes wait on it.
  ///   - elapsed: Time since the run started, for `@DURATION`.
  ///   - reject: Reports a bad line (its number counts the command's stdout lines from 1).
  package init(
    subprocess: Subprocess, clock: any Clock<Duration>,
    elapsed: @escaping @Sendable () -> Duration,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.subprocess = subprocess
    self.clock = clock
    self.elapsed = elapsed
    self.reject = reject
  }

  package func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    let run: (result: Bool, termination: Subprocess.Termination, stderrTail: [String])
    var child: ChildProcess?
    do {
      run = try await subprocess.withLines { lines in
        child = lines.child
        return await forward(&lines, into: sink)
      }
    } catch let error as SubprocessError {
      return error == .cancelled ? .stopped : .failed(error.description)
    } catch {
      return .stopped
    }
    guard run.result, !Task.isCancelled else { return .stopped }
    switch run.termination {
    case .exited(0): return .sourceFinished
    case .signalled where child?.endedByTeardown == true: return .sourceFinished
    default:
      return .failed(ExternalCommand.failure("command", run.termination, run.stderrTail))
    }
  }

  /// Reads lines until stdout ends, yielding their prices.
  /// - Returns: `false` when the feed was stopped first (the sink refused a value, or the task
  ///   was cancelled while a line waited for its time).
  private func forward(_ lines: inout Subprocess.LineIterator, into sink: LivePriceSink) async
    -> Bool
  {
    var splitter = LineSplitter()
    let newline: [UInt8] = [UInt8(ascii: "\n")]
    while let bytes = await lines.next() {
      // A piece of a line longer than the iterator's limit: the splitter joins it to the rest
      // (and rejects the whole as too long), so numbering counts the command's real lines.
      let isPiece = bytes.count == Subprocess.LineIterator.maxLine
      for raw in splitter.feed(isPiece ? bytes[...] : (bytes + newline)[...]) {
        guard await forward(raw, into: sink) else { return false }
      }
    }
    for raw in splitter.finish() {
      guard await forward(raw, into: sink) else { return false }
    }
    return true
  }

  /// Parses one line, waits for its time, and yields its price or reports it.
  /// - Returns: `false` when the feed was stopped.
  private func forward(_ raw: RawLine, into sink: LivePriceSink) async -> Bool {
    guard let text = raw.text else {
      reject(InputError(line: raw.number, message: raw.problem ?? "unreadable line"))
      return true
    }
    let line: InputLine
    do throws(InputError) {
      guard let parsed = try InputLine.parse(text, number: raw.number) else { return true }
      line = parsed
    } catch {
      reject(error)
      return true
    }
    guard await PriceLine.wait(for: line.timing, clock: clock, elapsed: elapsed) else {
      return false
    }
    switch PriceLine.parse(line.body) {
    case .success(let price):
      return await sink.yield(price)
    case .failure(let error):
      reject(InputError(line: raw.number, message: error.message))
      return true
    }
  }
}
