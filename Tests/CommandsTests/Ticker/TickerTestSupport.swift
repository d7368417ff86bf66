import LoadctlCore
import Synchronization
import Testing

@testable import LoadctlCommands

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Values appended from any task, read by the test.
final class TickerRecorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])
  func append(_ value: Value) { storage.withLock { $0.append(value) } }
  var values: [Value] { storage.withLock { $0 } }
}

/// An `EventOutput` whose lines a test can read: JSON (or text) written to a temporary file,
/// timed by a test clock, so `elapsed_ms` is virtual time and exact.
final class CapturedTickerOutput: Sendable {
  let output: EventOutput
  /// What `output` writes through; also a run's stderr in ``runTicker(_:capture:clock:errors:)``.
  let writer: OutputWriter
  private let path: String
  private let fd: Int32

  /// - Parameter tap: Sees every event before it is written, in the emitting task.
  init(
    clock: VirtualClock, json: Bool = true,
    tap: (@Sendable (ObservedEvent, [(String, JSONValue)], Duration) -> Void)? = nil
  ) {
    let path = "/tmp/ticker-test-\(UInt64.random(in: 0...UInt64.max))"
    let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    self.fd = fd
    self.path = path
    writer = OutputWriter(fileDescriptor: fd)
    output = EventOutput(
      command: "ticker", json: json, quiet: false, style: Style(enabled: false),
      writer: writer, elapsed: { clock.now.offset }, tap: tap)
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// Every line written (and flushed) so far.
  var lines: [String] {
    output.flush()
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = fread(&chunk, 1, chunk.count, file)
      if count <= 0 { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// The JSON lines, parsed.
  var events: [JSONValue] {
    lines.compactMap { try? JSONParser.parse($0) }
  }

  /// `event` plus the named fields of each event, e.g. `tick n=3 price=101.27 @3000`.
  func describe(_ keys: [String] = ["n", "price", "change", "reason", "count", "total"]) -> [String]
  {
    events.map { event in
      var text = event["event"].map(\.serialized) ?? "?"
      text = text.replacing("\"", with: "")
      for key in keys {
        if let value = event[key] {
          text += " \(key)=\(value.serialized.replacing("\"", with: ""))"
        }
      }
      if let elapsed = event["elapsed_ms"] { text += " @\(elapsed.serialized)" }
      return text
    }
  }
}

/// A live source that yields fixed values at once, without waiting, then ends (or stays open
/// until cancelled).
struct FixedPrices: LivePriceSource {
  var values: [Double]
  var endsAfterwards = true
  /// Give the other tasks a turn after the first value, so it is taken alone.
  var pauseAfterFirst = false

  func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    for (index, value) in values.enumerated() {
      guard await sink.yield(value) else { return .stopped }
      if pauseAfterFirst, index == 0 { await Task.yield() }
    }
    guard endsAfterwards else {
      await StreamTermination().wait()  // until cancelled
      return .stopped
    }
    return .sourceFinished
  }
}

/// The seeded random prices between 90 and 110.
func randomPrices(seed: UInt64 = 42) -> RandomPrices {
  guard let prices = try? RandomPrices(seed: seed, min: 90, max: 110) else {
    preconditionFailure("90...110 is a valid range")
  }
  return prices
}

/// The timed random feed on a test clock.
func randomSource(
  clock: VirtualClock, interval: Duration = .seconds(1), seed: UInt64 = 42
) -> TimedRandomPrices<VirtualClock> {
  TimedRandomPrices(prices: randomPrices(seed: seed), interval: interval, clock: clock)
}

/// The first `count` prices of the random feed for `seed`.
func expectedPrices(seed: UInt64 = 42, count: Int) -> [Double] {
  var prices = randomPrices(seed: seed)
  return (0..<count).map { _ in prices.next() }
}

/// The value of a task that has already finished on a test clock's executor.
func syncValue<T: Sendable>(_ task: Task<T, Never>) -> T {
  let box = TickerRecorder<T>()
  let clock = VirtualClock()
  _ = clock.launch { box.append(await task.value) }
  clock.drain()
  guard let value = box.values.first else { preconditionFailure("the task has not finished") }
  return value
}

extension CapturedTickerOutput {
  /// A run's context that prints on this output, timed by `clock`; problems go to `errors`,
  /// else to stderr.
  func context(clock: VirtualClock, errors: CapturedTickerOutput? = nil) -> RunContext {
    RunContext(
      output: output, clock: clock, elapsed: { clock.now.offset },
      errors: errors?.writer ?? OutputWriter(fileDescriptor: 2))
  }
}

/// Runs `flow` through the runner, as `loadctl ticker` does, printing on `capture` (and its
/// problems on `errors`).
func runTicker(
  _ flow: TickerFlow, capture: CapturedTickerOutput, clock: VirtualClock,
  errors: CapturedTickerOutput? = nil
) async -> FlowEnd {
  await FlowRunner.run(
    flow, lines: nil, keys: .never, context: capture.context(clock: clock, errors: errors))
}

extension TickerFlow {
  /// A flow's settings before its source is chosen, for tests that pair them with sources.
  struct Settings {
    var buffer: TickerBuffer
    var count: Int?
  }
}
