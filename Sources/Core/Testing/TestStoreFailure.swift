/// Why a ``TestStore`` assertion failed; thrown, so any test framework reports it.
///
/// Core cannot import a test framework (it ships in the binary), so TestStore throws this instead
/// of recording issues. A Swift Testing or XCTest test that calls `try store.send(…)` fails with
/// the message and the caller's location.
public struct TestStoreFailure: Error, CustomStringConvertible, Sendable {
  /// What was expected and what happened.
  public let message: String
  /// Where the failing assertion was written.
  public let file: String
  /// The line of the failing assertion.
  public let line: Int

  /// Creates a failure at a source location.
  public init(_ message: String, file: String = #fileID, line: Int = #line) {
    self.message = message
    self.file = file
    self.line = line
  }

  public var description: String { "\(file):\(line): \(message)" }
}
