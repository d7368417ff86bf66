// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "loadctl",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "loadctl", targets: ["loadctl"]),
    // The runtime, for other packages: a store, effects with ids and policies, clocks, a
    // subprocess runner. Its module name is prefixed so it cannot clash with theirs.
    .library(name: "LoadctlCore", targets: ["LoadctlCore"]),
    // Test support for flows on the runtime (TestStore, ImmediateClock), for test targets only:
    // it links Swift Testing, which the runtime never does.
    .library(name: "LoadctlTestKit", targets: ["LoadctlTestKit"]),
  ],
  targets: [
    .target(name: "LoadctlCore", path: "Sources/Core", exclude: ["Testing"]),
    .target(name: "LoadctlTestKit", dependencies: ["LoadctlCore"], path: "Sources/Core/Testing"),
    .target(name: "LoadctlCommands", dependencies: ["LoadctlCore"], path: "Sources/Commands"),
    .executableTarget(name: "loadctl", dependencies: ["LoadctlCommands", "LoadctlCore"]),
    .testTarget(
      name: "LoadctlCoreTests", dependencies: ["LoadctlCore", "LoadctlTestKit"],
      path: "Tests/CoreTests"),
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
