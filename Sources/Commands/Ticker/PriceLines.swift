import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `--from` a regular file, or any input on virtual time: prices pulled from lines.
///
/// The lines follow the shared input grammar (``InputLine``): blank lines and `#` comments are
/// skipped, `+DURATION`/`@DURATION` prefixes replay a recorded rhythm on the clock, and a line
/// that is not a price is reported through `reject` and skipped. End of input ends the feed.
///
/// These inputs can wait for the consumer, so nothing is dropped and a file of any size is shown
/// completely. What is already there is read ahead, up to ``readAhead`` prices: lines that need
/// no wait are read, parsed (bad ones reported) and queued before the first of them is shown; a
/// line with a time prefix is held until the queued prices are shown, then waited for.
package struct PriceLines<Lines: AsyncIteratorProtocol<RawLine, Never>>: PricePull {
  /// The most prices read ahead of the consumer.
  package static var readAhead: Int { 1024 }

  private var lines: Lines
  private let clock: any Clock<Duration>
  private let elapsed: @Sendable () -> Duration
  private let reject: @Sendable (InputError) -> Void
  private var ready: [Double] = []
  private var readyIndex = 0
  /// A line read whose time has not come yet.
  private var held: InputLine?
  private var ended = false
  package private(set) var produced = 0

  /// - Parameters:
  ///   - lines: Raw lines, e.g. ``FileLines`` or a `RunContext`'s lines.
  ///   - clock: The run's clock; time prefixes wait on it.
  ///   - elapsed: Time since the run started, for `@DURATION`.
  ///   - reject: Reports a bad line.
  package init(
    lines: Lines, clock: any Clock<Duration>, elapsed: @escaping @Sendable () -> Duration,
    reject: @escaping @Sendable (InputError) -> Void
  ) {
    self.lines = lines
    self.clock = clock
    self.elapsed = elapsed
    self.reject = reject
  }

  /// The queue is empty: the next ``next()`` reads, and may wait for a line's time.
  package var mayWait: Bool { readyIndex == ready.count && !ended }

  package mutating func next() async -> Double? {
    if readyIndex == ready.count {
      guard await refill() else { return nil }
    }
    defer { readyIndex += 1 }
    return ready[readyIndex]
  }

  /// Queues the next prices: waits for a held line if nothing else is queued, then reads what
  /// needs no wait.
  /// - Returns: `false` when nothing could be queued (end of input, or cancelled).
  private mutating func refill() async -> Bool {
    ready.removeAll(keepingCapacity: true)
    readyIndex = 0
    while ready.count < Self.readAhead {
      if let line = held {
        guard ready.isEmpty else { break }
        held = nil
        guard await wait(line.timing) else {
          ended = true
          return false
        }
        take(line)
        continue
      }
      guard !ended, let raw = await lines.next(isolation: nil) else {
        ended = true
        break
      }
      guard let text = raw.text else {
        reject(InputError(line: raw.number, message: raw.problem ?? "unreadable line"))
        continue
      }
      do throws(InputError) {
        guard let line = try InputLine.parse(text, number: raw.number) else { continue }
        if line.timing == .now {
          take(line)
        } else {
          held = line
        }
      } catch {
        reject(error)
      }
    }
    return !ready.isEmpty
  }

  private mutating func take(_ line: InputLine) {
    switch PriceLine.parse(line.body) {
    case .success(let price):
      ready.append(price)
      produced += 1
    case .failure(let error):
      reject(InputError(line: line.number, message: error.message))
    }
  }

  private func wait(_ timing: InputLine.Timing) async -> Bool {
    await PriceLine.wait(for: timing, clock: clock, elapsed: elapsed)
  }
}

/// `--from` a pipe or a terminal on real time: prices forwarded as their lines are read. A live
/// source: if the consumer falls behind, the buffer policy decides what is lost.
package struct LivePriceLines<Prices: AsyncSequence<Double, Never> & Sendable>: LivePriceSource {
  package let prices: Prices

  package init(prices: Prices) {
    self.prices = prices
  }

  package func produce(into sink: LivePriceSink) async -> PriceFeedEnd {
    for await price in prices {
      guard await sink.yield(price) else { return .stopped }
    }
    return Task.isCancelled ? .stopped : .sourceFinished
  }
}

/// The `--from` line grammar after the shared prefix: one decimal number.
package enum PriceLine {
  /// Parses one line's text (after the shared grammar took its prefix) as a price.
  ///
  /// Decimal numbers only, such as `101.25`, `-3`, `1e3`; `nan`, `inf` and hex floats are
  /// refused, because no feed means them.
  package static func parse(_ text: String) -> Result<Double, InputError> {
    let decimal = text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"),
        UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
        true
      default: false
      }
    }
    guard decimal, let value = Double(text), value.isFinite else {
      return .failure(
        InputError(line: 0, message: "not a price: '\(text)' (expected a number such as 101.25)"))
    }
    return .success(value)
  }

  /// Waits until a line's time has come: `+DURATION` after now, `@DURATION` after the start.
  /// - Parameters:
  ///   - clock: The run's clock.
  ///   - elapsed: Time since the run started, for `@DURATION`.
  /// - Returns: `false` when the task was cancelled before or during the wait.
  static func wait(
    for timing: InputLine.Timing, clock: any Clock<Duration>, elapsed: () -> Duration
  ) async -> Bool {
    let delay: Duration
    switch timing {
    case .now: return !Task.isCancelled
    case .after(let duration): delay = duration
    case .at(let offset): delay = offset - elapsed()
    }
    guard delay > .zero else { return !Task.isCancelled }
    do {
      try await clock.sleep(for: delay)
      return true
    } catch {
      return false
    }
  }
}
