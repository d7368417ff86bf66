// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "loadctl",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "loadctl", targets: ["loadctl"]),
    // The runtime, for other packages: a store, effects with ids and policies, clocks, a
    // subprocess runner, TestStore. Its module name is prefixed so it cannot clash with theirs.
    .library(name: "LoadctlCore", targets: ["LoadctlCore"]),
  ],
  targets: [
    .target(name: "LoadctlCore", path: "Sources/Core"),
    .target(name: "LoadctlCommands", dependencies: ["LoadctlCore"], path: "Sources/Commands"),
    .executableTarget(name: "loadctl", dependencies: ["LoadctlCommands", "LoadctlCore"]),
    .testTarget(name: "LoadctlCoreTests", dependencies: ["LoadctlCore"], path: "Tests/CoreTests"),
    .testTarget(
      name: "LoadctlCommandsTests", dependencies: ["LoadctlCommands", "LoadctlCore"],
      path: "Tests/CommandsTests"),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["loadctl"],
      resources: [.copy("Fixtures")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
