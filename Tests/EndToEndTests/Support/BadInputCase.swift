import Foundation
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One bad input and the answer it must get.
struct BadInputCase: Sendable, CustomTestStringConvertible {
  /// What loadctl must do; `message` follows `Error: ` (or `Error: input line N: `).
  enum Expected: Sendable {
    /// Status 64; the usage lines name `command` (`nil`: the top level).
    case usage(String, command: String?)
    /// Status 65: a file that cannot be used; nothing runs.
    case badFile(String)
    /// Status 65: the bad line is reported and skipped, the lines around it apply.
    case badLine(command: String, String)
    /// Status 1: the flow ran and failed; its `end` state's message contains the text.
    case flowFailed(command: String, String)

    var status: Int32 {
      switch self {
      case .usage: 64
      case .badFile, .badLine: 65
      case .flowFailed: 1
      }
    }

    var message: String {
      switch self {
      case .usage(let text, _), .badFile(let text), .badLine(_, let text), .flowFailed(_, let text):
        text
      }
    }
  }

  /// How a subcommand's input-line rows run: its arguments, the valid lines before and after the
  /// bad one, and the transitions (by action) those lines make. Virtual time keeps it exact.
  struct LineContext: Sendable {
    let arguments: [String]
    let before: [String]
    let after: [String]
    let applied: [String]
  }

  let arguments: [String]
  let expected: Expected
  /// Files written into `{tmp}` (a fresh directory per case) before the run.
  var files: [String: [UInt8]] = [:]
  /// Files in `{tmp}` made unreadable (chmod 000).
  var unreadable: [String] = []
  /// A file in `{tmp}` given as standard input (`.` for the directory itself).
  var stdin: String?

  var testDescription: String {
    arguments.joined(separator: " ").escapedForDescription
  }

  /// A usage error; `arguments` follow `command` (none for the top level).
  static func usage(_ command: String?, _ arguments: [String], _ message: String) -> Self {
    Self(
      arguments: (command.map { [$0] } ?? []) + arguments,
      expected: .usage(message, command: command))
  }

  /// A file the command cannot use; `files` are written into `{tmp}` first.
  static func badFile(
    _ command: String, _ arguments: [String], _ message: String, files: [String: [UInt8]] = [:],
    unreadable: [String] = [], stdin: String? = nil
  ) -> Self {
    Self(
      arguments: [command] + arguments, expected: .badFile(message), files: files,
      unreadable: unreadable, stdin: stdin)
  }

  /// A bad input line between the command's valid ones, read from a file or from stdin.
  static func badLine(
    _ command: String, _ line: [UInt8], _ message: String, viaStdin: Bool = false
  ) -> Self {
    let context = lineContexts[command]
    let lines =
      (context?.before ?? []).map { Array($0.utf8) } + [line]
      + (context?.after ?? []).map { Array($0.utf8) }
    let input = Array(lines.joined(separator: [UInt8(ascii: "\n")])) + [UInt8(ascii: "\n")]
    let arguments =
      [command, "--clock", "virtual", "--json", "--input", viaStdin ? "-" : "{tmp}/input"]
      + (context?.arguments ?? [])
    return Self(
      arguments: arguments, expected: .badLine(command: command, message), files: ["input": input],
      stdin: viaStdin ? "input" : nil)
  }

  /// The flow runs and fails, such as a request to a closed port.
  static func flowFailed(_ command: String, _ arguments: [String], _ message: String) -> Self {
    Self(
      arguments: [command, "--json"] + arguments, expected: .flowFailed(command: command, message))
  }

  /// Writes the case's files into a new directory and returns its path.
  func makeFiles() throws -> String {
    let directory = NSTemporaryDirectory() + "loadctl-bad-input-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for (name, bytes) in files {
      try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
    }
    for name in unreadable {
      try Data("{\"name\":\"secret\"}".utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
      chmod(directory + "/" + name, 0)
    }
    return directory
  }
}

extension String {
  /// Control characters as escapes and long texts cut, so each case's name stays one short line.
  fileprivate var escapedForDescription: String {
    let escaped = unicodeScalars.map {
      $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0)
    }
    .joined()
    return escaped.count > 80 ? escaped.prefix(60) + "…(\(escaped.count) characters)" : escaped
  }
}
