import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Validates captured JSON Lines against a JSON Schema with `scripts/validate_events.py`.
///
/// The schemas in `docs/schema/` are the published contract; checking real output
/// against it catches drift between what loadctl writes and what the docs promise. The check
/// needs python3 with `jsonschema`: tests gate on `isAvailable`, and CI installs it.
///
/// ```swift
/// @Test(.enabled(if: SchemaValidator.isAvailable))
/// func profileOutputMatchesTheSchema() async throws {
///   let outcome = try await LoadctlProcess.run(["profile", "--json", "load"])
///   #expect(try await SchemaValidator.failures(of: outcome.stdout) == [])
/// }
/// ```
enum SchemaValidator {
  /// The python interpreter: `LOADCTL_PYTHON`, else `python3` from `PATH`.
  static var python: String {
    ProcessInfo.processInfo.environment["LOADCTL_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
      ?? "python3"
  }

  /// True when `python3 -c 'import jsonschema'` succeeds. Computed once.
  static let isAvailable: Bool = {
    let request = Spawner.Request(
      executable: python, arguments: ["-c", "import jsonschema"],
      environment: ProcessInfo.processInfo.environment,
      stdin: .file("/dev/null", forWriting: false), stdout: .file("/dev/null", forWriting: true),
      stderr: .file("/dev/null", forWriting: true))
    guard let pid = try? Spawner.spawn(request) else { return false }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return Termination(waitStatus: status) == .exited(0)
  }()

  /// The repository root, found from this file's path (`Tests/EndToEndTests/Support/`).
  static func repositoryRoot() -> URL {
    URL(fileURLWithPath: ownPath)
      .deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
  }

  /// This file's path; a default `#filePath` argument would be the caller's.
  private static let ownPath: String = #filePath

  /// The schema of the `error` event any `--json` run prints when it ends before its flow.
  static var errorSchema: URL {
    repositoryRoot().appendingPathComponent("docs/schema/error.schema.json")
  }

  /// The schema of one subcommand's events, `docs/schema/<command>.schema.json`.
  static func schema(for command: String) -> URL {
    repositoryRoot().appendingPathComponent("docs/schema/\(command).schema.json")
  }

  /// The validation script.
  static var script: URL {
    repositoryRoot().appendingPathComponent("scripts/validate_events.py")
  }

  /// Validates `lines` against `schema`.
  ///
  /// - Returns: One `line N: <error>` entry per invalid line; empty when every line is valid.
  /// - Throws: `HarnessError` when the script cannot run or fails for another reason (a broken
  ///   schema, missing `jsonschema`, no input lines), with its stderr.
  static func failures(of lines: [String], schema: URL) async throws -> [String] {
    let input = lines.map { $0 + "\n" }.joined()
    // jsonschema takes milliseconds a line (the hour-long timer transcript's 3,606 lines took
    // 13 s on a quiet machine here, over 30 s beside the rest of the suite): the failsafe grows
    // with the work, so that only a validator that truly hangs is stopped.
    let timeout = LoadctlProcess.defaultTimeout * (1 + Double(lines.count) / 100)
    let outcome = try await LoadctlProcess.run(
      executable: python, arguments: [script.path, schema.path, "-"], stdin: .text(input),
      timeout: timeout)
    switch outcome.termination {
    case .exited(0): return []
    case .exited(1) where outcome.stdout.contains(where: { $0.hasPrefix("line ") }):
      return outcome.stdout.filter { $0.hasPrefix("line ") }
    default:
      throw HarnessError.serverFailed(
        "validate_events.py \(outcome.termination):\n\(outcome.stdout.joined(separator: "\n"))"
          + "\n\(outcome.stderr)")
    }
  }
}
