// swift-tools-version: 6.0
// The reference programs that scripts/bench.sh measures loadctl against: plain Swift, each
// self-contained (the few lines of generator and number formatting they share with loadctl are
// copied, so their bytes match), in a package of their own so the root manifest builds the
// product and its tests only. scripts/bench.sh builds loadctl from the root.
import PackageDescription

let package = Package(
  name: "loadctl-benchmarks",
  platforms: [.macOS(.v15)],
  targets: [
    // The naive `Task.sleep` timer that scripts/bench-timer.sh compares `loadctl timer` with.
    .executableTarget(name: "NaiveTimer", path: "NaiveTimer"),
    // The plain-loop reference of the ticker figures: random prices, or prices from a file.
    .executableTarget(name: "TickerReference", path: "TickerReference"),
    // The plain-loop reference of `loadctl counter --input FILE --json`.
    .executableTarget(name: "CounterReference", path: "CounterReference"),
    // Start-up of a stdlib-only async hello world, against `loadctl --version`.
    .executableTarget(name: "HelloReference", path: "HelloReference"),
    // Ctrl-C to exit of a task group of sleepers, against profile and ticker.
    .executableTarget(name: "CancelReference", path: "CancelReference"),
  ],
  swiftLanguageModes: [.v6]
)
