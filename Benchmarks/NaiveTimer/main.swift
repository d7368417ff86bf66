// The reference `scripts/bench-timer.sh` measures `loadctl timer` against: a naive timer that
// sleeps for the interval, N times, the way a first attempt at TCA's `Timers` pattern would.
//
// Each `Task.sleep(for:)` wakes a little late and the next sleep starts from there, so lateness
// adds up over the run. `ClockTimer` sleeps until absolute deadlines instead. This program is a
// benchmark, not part of loadctl: it uses `Task.sleep` and the real clock on purpose.
//
// Usage: NaiveTimer [INTERVAL_MS] [TICKS]   (defaults: 10 1000)
// Prints one JSON line: {"interval_ms":10,"ticks":1000,"final_lateness_ms":281.234}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
let intervalMilliseconds = arguments.first.flatMap(Int.init) ?? 10
let ticks = arguments.dropFirst().first.flatMap(Int.init) ?? 1000
guard intervalMilliseconds > 0, ticks > 0 else {
  print("usage: NaiveTimer [INTERVAL_MS] [TICKS]  (both positive integers)")
  exit(64)
}
let interval = Duration.milliseconds(intervalMilliseconds)

let clock = ContinuousClock()
let start = clock.now
for _ in 0..<ticks {
  try await Task.sleep(for: interval)
}
let lateness = start.duration(to: clock.now) - interval * ticks
let (seconds, attoseconds) = lateness.components
let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
print(
  "{\"interval_ms\":\(intervalMilliseconds),\"ticks\":\(ticks),"
    + "\"final_lateness_ms\":\(Double(micros) / 1000)}")
