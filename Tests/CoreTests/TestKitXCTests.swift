import LoadctlCore
import LoadctlTestKit
import Testing
import XCTest

/// The test kit under XCTest: a failure is an XCTest failure of the running test case.
final class TestKitXCTests: XCTestCase {
  /// Failures recorded while `capturing`; the test's own assertions fail it as usual.
  private var failures: [String] = []
  private var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    guard capturing else {
      return super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
    failures.append(description)
  }

  func testAFailedAssertionAndAStoreLeftWithWorkFailTheTestCase() {
    capturing = true
    do {
      let store = TestStore(initialState: 0) { (state: inout Int, action: Int) in
        state += action
        return action == 1 ? .send(5) : .none
      }
      store.send(2) { $0 = 3 }
      store.send(1) { $0 = 3 }
    }
    capturing = false
    XCTAssertEqual(failures.count, 2)
    XCTAssertTrue(failures.first?.contains("TestKitXCTests.swift:") == true, "\(failures)")
    XCTAssertTrue(failures.first?.contains("− state: 3\n  + state: 2") == true, "\(failures)")
    XCTAssertTrue(failures.last?.contains("1 received action(s) not asserted") == true)
  }
}
