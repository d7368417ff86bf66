// swift-tools-version: 6.0
// A package that uses loadctl's runtime the way any other package would: pinned by version from
// a git URL. `scripts/check-consumer.sh` builds and tests it against a tagged clone of the commit
// under test by setting LOADCTL_URL.
import PackageDescription

// CI (scripts/check-consumer.sh) points LOADCTL_URL at a tagged clone; the default is a
// placeholder for wherever the repository is hosted.
let loadctlURL = Context.environment["LOADCTL_URL"] ?? "https://git.example.com/you/loadctl.git"

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
