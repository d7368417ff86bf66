// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "loadctl",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "loadctl", targets: ["loadctl"]),
    .library(name: "Core", targets: ["Core"]),
  ],
  targets: [
    // Release builds export Core's generic code (the store's run loop above all) to the modules
    // that use it, so `Store<State, Action>` is specialised for each flow instead of going through
    // generic metadata at run time (StoreThroughput: most of the store's time before).
    .target(
      name: "Core",
      swiftSettings: [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
    ),
    .target(name: "Commands", dependencies: ["Core"]),
    .executableTarget(name: "loadctl", dependencies: ["Commands", "Core"]),
    // The naive `Task.sleep` timer that scripts/bench-timer.sh compares `loadctl timer` with.
    .executableTarget(name: "NaiveTimer", path: "Benchmarks/NaiveTimer"),
    // The plain-loop reference of scripts/bench-ticker.sh; not a product.
    .executableTarget(
      name: "TickerReference", dependencies: ["Core"], path: "Benchmarks/TickerReference"),
    // scripts/bench.sh: start-up of a stdlib-only async hello world, against `loadctl --version`.
    .executableTarget(name: "HelloReference", path: "Benchmarks/HelloReference"),
    // scripts/bench.sh: Ctrl-C to exit of a task group of sleepers, against profile and ticker.
    .executableTarget(
      name: "CancelReference", dependencies: ["Core"], path: "Benchmarks/CancelReference"),
    // scripts/bench.sh: actions/s through `Store.run` against a plain loop over the same reducer.
    .executableTarget(
      name: "StoreThroughput", dependencies: ["Core"], path: "Benchmarks/StoreThroughput"),
    .testTarget(name: "CoreTests", dependencies: ["Core"]),
    .testTarget(name: "CommandsTests", dependencies: ["Commands", "Core"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["loadctl"],
      resources: [.copy("Fixtures")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
