import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds the built executable under test next to the running test bundle.
///
/// `swift test` builds the `loadctl` product into the same directory as the test bundle
/// (`.build/<triple>/debug/`), so that directory is where the tests look, however the bundle
/// was launched: directly on Linux, through `xctest` or a helper on macOS. `LOADCTL_BIN`
/// overrides the whole search with a path; `LOADCTL_BIN_NAME` changes the name looked for
/// (a scratch package points it at a stand-in).
enum BinaryLocator {
  /// The executable name used when `LOADCTL_BIN_NAME` is not set.
  static let defaultName = "loadctl"

  /// The path of the executable under test.
  ///
  /// - Throws: `HarnessError` listing every directory searched.
  static func locate(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(HarnessError) -> String {
    if let explicit = environment["LOADCTL_BIN"], !explicit.isEmpty {
      guard access(explicit, X_OK) == 0 else {
        throw .binaryNotFound(explicit, searched: ["LOADCTL_BIN=\(explicit)"])
      }
      return explicit
    }
    let name = environment["LOADCTL_BIN_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultName
    let directories = candidateDirectories()
    for directory in directories {
      let candidate = directory.appendingPathComponent(name).path
      if access(candidate, X_OK) == 0 { return candidate }
    }
    throw .binaryNotFound(name, searched: directories.map(\.path))
  }

  /// Where the products of this build may be, most specific first, without duplicates.
  static func candidateDirectories(sourceFile: String = #filePath) -> [URL] {
    var directories: [URL] = []
    #if os(Linux)
      // The test runner on Linux is the `…PackageTests.xctest` executable itself.
      if let executable = try? FileManager.default.destinationOfSymbolicLink(
        atPath: "/proc/self/exe")
      {
        directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
      }
    #endif
    // On macOS the bundle is loaded by `xctest` or `swiftpm-testing-helper`.
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    directories.append(Bundle.main.bundleURL)
    if let first = CommandLine.arguments.first, first.contains("/") {
      directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
    }
    // The resource bundle SwiftPM generates sits in the products directory.
    directories.append(Bundle.module.bundleURL.deletingLastPathComponent())
    // Last resort: the repository's `.build/debug` symlink, found from this source file.
    let root = URL(fileURLWithPath: sourceFile)
      .deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    directories.append(root.appendingPathComponent(".build/debug"))
    var seen: Set<String> = []
    return directories.map(\.standardizedFileURL).filter { seen.insert($0.path).inserted }
  }
}
