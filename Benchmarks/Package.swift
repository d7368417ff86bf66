// swift-tools-version: 6.0
// The reference programs that scripts/bench.sh measures loadctl against. A package of its own,
// depending on the root by path, so the root manifest builds the product and its tests only.
import PackageDescription

let package = Package(
  name: "loadctl-benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "loadctl", path: "..")],
  targets: [
    // The naive `Task.sleep` timer that scripts/bench-timer.sh compares `loadctl timer` with.
    .executableTarget(name: "NaiveTimer", path: "NaiveTimer"),
    // The plain-loop reference of the ticker figures.
    .executableTarget(
      name: "TickerReference", dependencies: [.product(name: "LoadctlCore", package: "loadctl")],
      path: "TickerReference"),
    // Start-up of a stdlib-only async hello world, against `loadctl --version`.
    .executableTarget(name: "HelloReference", path: "HelloReference"),
    // Ctrl-C to exit of a task group of sleepers, against profile and ticker.
    .executableTarget(
      name: "CancelReference", dependencies: [.product(name: "LoadctlCore", package: "loadctl")],
      path: "CancelReference"),
    // Actions/s through `Store.run` against a plain loop over the same reducer.
    .executableTarget(
      name: "StoreThroughput", dependencies: [.product(name: "LoadctlCore", package: "loadctl")],
      path: "StoreThroughput"),
  ],
  swiftLanguageModes: [.v6]
)
