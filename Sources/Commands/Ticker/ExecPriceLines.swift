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
  private let clock: LineClock
  private let reject: @Sendable (InputError) -> Void

  /// - Parameters:
  ///   - subprocess: The command, e.g. `ExternalCommand.shell(cmd, killAfter:)`.
  ///   - clock: When a line with a time prefix applies (the run's clock).
  ///   - reject: Reports a bad line (its number counts the command's stdout lines from 1).
  package init(
    subprocess: Subprocess, clock: LineClock, reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.subprocess = subprocess
    self.clock = clock
    self.reject = reject
  }

  package func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    let run: (result: Bool, termination: Subprocess.Termination, stderrTail: [String])
    var child: ChildProcess?
    do {
      run = try await subprocess.withLines { lines in
        child = lines.child
        var prices = TimedLineReader(
          lines: CommandLines(lines), clock: clock, parse: PriceLine.parse, reject: reject)
        while let price = await prices.next() {
          guard await sink.yield(price) else { return false }
        }
        return true
      }
    } catch let error as SubprocessError {
      return error == .cancelled ? .stopped : .failed(error.description)
    } catch {
      return .stopped
    }
    // Cancelled while a line waited for its time, or the consumer went away.
    guard run.result, !Task.isCancelled else { return .stopped }
    switch run.termination {
    case .exited(0): return .sourceFinished
    // Torn down by this run (it closed stdout while still running): however it answered the
    // teardown, by dying or by an exit status of its own, its feed simply ended.
    case _ where child?.endedAfterTeardown == true: return .sourceFinished
    default:
      return .failed(ExternalCommand.failure("command", run.termination, run.stderrTail))
    }
  }
}

/// A command's stdout lines as input lines: numbered from 1 and checked as every input line is
/// (``LineSplitter/line(_:number:)``).
///
/// A line longer than ``Subprocess/LineIterator/maxLine`` arrives in pieces of exactly that
/// size: its first piece is taken as the one line it is, which is too long, at once (a command
/// may never end it), and the pieces after it, up to its shorter last one, are skipped.
struct CommandLines: AsyncIteratorProtocol {
  private var lines: Subprocess.LineIterator
  private var number = 0
  /// The pieces that arrive are the rest of a line already given as too long.
  private var skipping = false

  init(_ lines: Subprocess.LineIterator) {
    self.lines = lines
  }

  mutating func next() async -> RawLine? {
    while let bytes = await lines.next() {
      let piece = bytes.count == Subprocess.LineIterator.maxLine
      if skipping {
        skipping = piece
        continue
      }
      number += 1
      if piece {
        skipping = true
        return LineSplitter.overlong(number: number)
      }
      return LineSplitter.line(bytes[...], number: number)
    }
    return nil
  }
}
