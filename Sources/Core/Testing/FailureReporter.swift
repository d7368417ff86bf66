import Testing

#if canImport(XCTest)
  import XCTest
#endif

/// Records a test failure where the framework running the test sees it: a Swift Testing issue
/// inside a Swift Testing test; outside one, an XCTest failure of the test case running, whose
/// message starts with where the failing assertion was written.
func recordFailure(_ message: String, at location: SourceLocation) {
  #if canImport(XCTest)
    if Test.current == nil {
      XCTFail("\(location): \(message)")
      return
    }
  #endif
  Issue.record(Comment(rawValue: message), sourceLocation: location)
}
