// swift-tools-version: 6.0
// A package that uses loadctl's runtime the way any other package would, and its test kit in its
// tests. `scripts/check-consumer.sh` builds and tests it against a tagged clone of the commit
// under test, pinned by version, by setting LOADCTL_URL.
import Foundation
import PackageDescription

// CI (scripts/check-consumer.sh) sets LOADCTL_URL to a tagged clone, to pin the runtime by
// version as a package elsewhere would; without it, the example builds against the checkout it
// sits in (two folders up), so it builds as it is on a fresh clone.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
  .deletingLastPathComponent()
let loadctl: Package.Dependency =
  Context.environment["LOADCTL_URL"].map { .package(url: $0, from: "0.1.0") }
  ?? .package(path: root.path)
// A path dependency is known by its folder's name, a URL one by the URL's last component.
let loadctlName =
  Context.environment["LOADCTL_URL"].map {
    URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent
  } ?? root.lastPathComponent

let package = Package(
  name: "CounterFlow",
  platforms: [.macOS(.v15)],
  dependencies: [loadctl],
  targets: [
    .target(
      name: "CounterFlow", dependencies: [.product(name: "LoadctlCore", package: loadctlName)]),
    .executableTarget(name: "counter-flow", dependencies: ["CounterFlow"]),
    .testTarget(
      name: "CounterFlowTests",
      dependencies: ["CounterFlow", .product(name: "LoadctlTestKit", package: loadctlName)],
      // Recordings of real runs, read by path (`#filePath`) and replayed.
      exclude: ["Recordings"]),
  ],
  swiftLanguageModes: [.v6]
)
