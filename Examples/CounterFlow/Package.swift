// swift-tools-version: 6.0
// A package that uses loadctl's runtime the way any other package would: pinned by version from
// a git URL. `scripts/check-consumer.sh` builds and tests it against a tagged clone of the commit
// under test by setting LOADCTL_URL; without it, the published repository is used.
import PackageDescription

let loadctlURL = Context.environment["LOADCTL_URL"] ?? "https://github.com/loadctl/loadctl.git"

let package = Package(
  name: "CounterFlow",
  platforms: [.macOS(.v15)],
  dependencies: [.package(url: loadctlURL, from: "0.1.0")],
  targets: [
    .target(
      name: "CounterFlow", dependencies: [.product(name: "LoadctlCore", package: "loadctl")]),
    .executableTarget(name: "counter-flow", dependencies: ["CounterFlow"]),
    .testTarget(name: "CounterFlowTests", dependencies: ["CounterFlow"]),
  ],
  swiftLanguageModes: [.v6]
)
