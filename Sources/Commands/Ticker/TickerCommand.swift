import LoadctlCore

/// `loadctl ticker`: a live price feed whose producer stops when its consumer does.
package enum TickerCommand: Subcommand {
  /// `ticker`'s options, each declared once: the table lists them, `options(_:_:environment:)`
  /// reads them.
  enum Option {
    static let interval = OptionKey.value(
      "interval", .duration,
      help: "Time between random prices; 0 makes them as fast as they can be shown.",
      default: "1s")
    static let min = OptionKey.value(
      "min", .double, valueName: "PRICE", help: "Lowest random price.", default: "90")
    static let max = OptionKey.value(
      "max", .double, valueName: "PRICE", help: "Highest random price.", default: "110")
    static let seed = OptionKey.value(
      "seed", .nonNegativeInt,
      help: "Seed of the random prices (SplitMix64); without it a random seed, shown in start.")
    static let count = OptionKey.value("count", .positiveInt, help: "Stop after N ticks.")
    static let buffer = OptionKey.value(
      "buffer", .suggested(["newest:1024", "oldest:1024", "unbounded"]), valueName: "POLICY",
      help: "When a live feed outruns the output: newest:N, oldest:N or unbounded.",
      default: TickerBuffer.default.description)
    static let from = OptionKey.value(
      "from", .file,
      help: "Read prices from FILE, or - for stdin, one number per line, as they arrive.")
    static let exec = OptionKey.value(
      "exec", .command,
      help: "Run CMD with /bin/sh -c and read its stdout lines as with --from. It is torn "
        + "down when the feed stops; a non-zero exit or a signal is reported (exit 1).")
    static let killAfter = OptionKey.value(
      "kill-after", .duration,
      help: "When the feed stops while the --exec command runs, wait this long after SIGTERM "
        + "before SIGKILL.", default: "2s")
  }

  package static let spec = CommandSpec(
    name: "ticker",
    summary: "Watch a live price feed: an AsyncStream whose producer stops with its consumer.",
    discussion: """
      A producer yields prices into an AsyncStream and a consumer prints each one as it comes, \
      like the PriceFeed.stream() pattern and its Ticker view. By default the prices are uniform \
      random cents between --min and --max, one per --interval, on a drift-free timer. \
      Whichever way the consumer ends (--count reached, Ctrl-C, SIGTERM, stdout closed), the \
      producer is stopped and producer_stopped is printed before end. With --from, prices are \
      numbers read line by line as they arrive; a bad line is reported and skipped (exit 65), \
      and end of input ends the feed. With --exec, the lines are a command's stdout: the \
      command is torn down (its whole process group) when the feed stops, its end ends the \
      feed, and a non-zero exit or a signal is reported (exit 1). --buffer decides what a live \
      feed drops when the consumer falls behind; --interval 0 and regular files wait for the \
      consumer and never drop.
      """,
    options: [
      Option.interval, Option.min, Option.max, Option.seed, Option.count, Option.buffer,
      Option.from, Option.exec, Option.killAfter,
    ],
    examples: [
      "loadctl ticker",
      "loadctl ticker --interval 250ms --min -5 --max 5 --count 20",
      "loadctl ticker --json --seed 42 --count 5 | jq -c 'select(.event == \"tick\") | .price'",
      "tail -f prices.txt | loadctl ticker --from -",
      "loadctl ticker --exec 'while :; do shuf -i 90-109 -n 1; sleep 0.1; done' --count 5",
      "loadctl ticker --interval 0 --count 1000000 --json > /dev/null",
    ])

  /// The random feed's settings.
  struct RandomSettings {
    var prices: RandomPrices
    var seed: UInt64
    var interval: Duration
  }

  /// `--exec`'s settings.
  struct ExecSettings: Equatable {
    var command: String
    var killAfter: Duration

    /// `exec` and `kill_after_ms` for the `start` event.
    var options: [(String, JSONValue)] {
      [
        ("exec", .string(command)),
        ("kill_after_ms", .double(EventOutput.milliseconds(killAfter))),
      ]
    }
  }

  /// `ticker`'s options, typed and checked once.
  package struct Options: Sendable {
    /// `--buffer`.
    let buffer: TickerBuffer
    /// The random feed's settings; `nil` with `--from` or `--exec`.
    let random: RandomSettings?
    /// `--exec` with `--kill-after`.
    let exec: ExecSettings?
    /// `--from`.
    let from: String?
    /// `--count`.
    let count: Int?

    /// The settings the `start` event echoes.
    var startFields: [(String, JSONValue)] {
      let source: JSONValue = exec != nil ? "exec" : from != nil ? "lines" : "random"
      return [
        ("source", source),
        (
          "interval_ms",
          random.map { .double(EventOutput.exactMilliseconds($0.interval)) } ?? .null
        ),
        ("min", random.map { .double(Double($0.prices.lowCents) / 100) } ?? .null),
        ("max", random.map { .double(Double($0.prices.highCents) / 100) } ?? .null),
        ("seed", random.map { .int(Int($0.seed)) } ?? .null),
        ("count", count.map(JSONValue.int) ?? .null),
        ("buffer", .string(buffer.description)),
        ("from", from.map(JSONValue.string) ?? .null),
      ] + (exec?.options ?? [])
    }
  }

  package static func options(
    _ invocation: Invocation, _ run: RunOptions, environment: [String: String]
  ) throws(EarlyExit) -> Options {
    do throws(UsageError) {
      let buffer = try TickerBuffer.parse(invocation[Option.buffer])
      let exec = try execSettings(invocation, mode: run.mode)
      return Options(
        buffer: buffer, random: try randomSettings(invocation, mode: run.mode), exec: exec,
        from: invocation[Option.from], count: invocation[Option.count])
    } catch {
      throw Loadctl.fail(usage: error, json: run.json)
    }
  }

  package static func run(_ options: Options, _ run: RunOptions) async throws(EarlyExit)
    -> ProcessEnd
  {
    let input = try Loadctl.openInput(options.from, for: run, option: "--from")
    return try await CommandRuntime.run(run, options: options.startFields) { context in
      let flow = TickerFlow(
        buffer: options.buffer, count: options.count,
        source: source(options, input: input, context: context))
      return await FlowRunner.run(flow, lines: nil, keys: .never, context: context)
    }
  }

  /// Where the prices come from: the random feed (pulled at `--interval 0`, else live on the
  /// run's clock), `--exec`'s command, or `--from` lines (pulled from a regular file and on
  /// virtual time, where the whole input is read first so its timing is exact; live from a pipe
  /// or a terminal).
  private static func source(
    _ options: Options, input: (Int32, Bool)?, context: RunContext
  ) -> TickerFlow.Source {
    if let random = options.random {
      let prices = random.prices
      if random.interval == .zero { return .pull { RandomPricePull(prices: prices) } }
      return .live(timedPrices(prices, interval: random.interval, clock: context.clock))
    }
    if let exec = options.exec {
      return .live(
        ExecPriceLines(
          subprocess: ExternalCommand.shell(exec.command, killAfter: exec.killAfter),
          clock: context.lineClock, reject: { context.reject($0) }))
    }
    // Without a random feed or `--exec`, `--from` was given and opened.
    let clock = context.lineClock
    let reject: @Sendable (InputError) -> Void = { context.reject($0) }
    if let (fd, owned) = input, FileLines.isRegularFile(fd) {
      // Read on the store's input task itself, which owns the file's reader.
      return .pull {
        TimedLineReader(
          lines: FileLines(fd: fd, closeWhenDone: owned), clock: clock, parse: PriceLine.parse,
          reject: reject)
      }
    }
    let lines = input.map { context.lines(fd: $0.0, closeWhenDone: $0.1) } ?? LineSource.lines([])
    if !context.isVirtual {
      return .live(LivePriceLines(prices: context.input(lines, parse: PriceLine.parse)))
    }
    return .pull { context.input(lines, parse: PriceLine.parse).makeAsyncIterator() }
  }

  /// The random feed on a drift-free timer of `clock` (opened from `any Clock`).
  private static func timedPrices(
    _ prices: RandomPrices, interval: Duration, clock: some Clock<Duration>
  ) -> some LivePriceSource {
    TimedRandomPrices(prices: prices, interval: interval, clock: clock)
  }

  /// `--exec`'s settings, or `nil` without it.
  ///
  /// `--exec` is a source of its own, so it excludes `--from`; it is refused on virtual time,
  /// where real processes cannot run; `--kill-after` only applies to it.
  /// - Throws: A usage error (exit 64) for a combination that cannot work.
  static func execSettings(_ invocation: Invocation, mode: RunMode) throws(UsageError)
    -> ExecSettings?
  {
    guard let command = invocation[Option.exec] else {
      if invocation.isGiven(Option.killAfter) {
        throw .invalidValue("'--kill-after' only applies to '--exec'", command: "ticker")
      }
      return nil
    }
    if invocation.isGiven(Option.from) {
      throw .invalidValue("'--exec' and '--from' cannot be used together", command: "ticker")
    }
    try ExternalCommand.requireRealTime("--exec", mode: mode, command: "ticker")
    return ExecSettings(command: command, killAfter: invocation[Option.killAfter])
  }

  /// The random feed's settings, or `nil` with `--from` or `--exec`.
  /// - Throws: A usage error for a bad range, or for random-feed options given with `--from` or
  ///   `--exec`.
  static func randomSettings(_ invocation: Invocation, mode: RunMode) throws(UsageError)
    -> RandomSettings?
  {
    if let source = [Option.from, Option.exec].first(where: { invocation.isGiven($0) }) {
      let randomFeed: [any OptionKeyProtocol] = [
        Option.interval, Option.min, Option.max, Option.seed,
      ]
      if let misplaced = randomFeed.first(where: { invocation.isGiven($0) }) {
        throw .invalidValue(
          "'\(misplaced.spec.longForm)' cannot be used with '\(source.spec.longForm)' (it sets "
            + "the random feed)",
          command: "ticker")
      }
      return nil
    }
    let min = invocation[Option.min]
    let max = invocation[Option.max]
    // Virtual time promises the same output for the same command line: its default seed is 0.
    let seed =
      invocation[Option.seed].map(UInt64.init)
      ?? mode.recordedSeed ?? (mode.isVirtual ? 0 : SeededGenerator.systemSeed())
    let prices: RandomPrices
    do throws(RandomPrices.RangeProblem) {
      prices = try RandomPrices(seed: seed, min: min, max: max)
    } catch {
      // As written, so the message quotes the user's own words.
      let written = (min: invocation.text(Option.min) ?? "", max: invocation.text(Option.max) ?? "")
      let range = "'--min \(written.min)' and '--max \(written.max)'"
      let message =
        switch error {
        case .notIncreasing: "\(range): --min must be less than --max"
        case .tooLarge: "\(range): prices must be between -1e12 and 1e12"
        case .tooNarrow: "\(range): need at least two whole-cent prices between them"
        }
      throw .invalidValue(message, command: "ticker")
    }
    return RandomSettings(prices: prices, seed: seed, interval: invocation[Option.interval])
  }
}
