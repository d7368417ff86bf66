import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `Shutdown`: which requests reach its notice (and so a recording), without real signals.
@Suite struct ShutdownTests {
  private final class Notices: Sendable {
    let reasons = Locked<[ShutdownReason]>([])
  }

  private static func shutdown(_ notices: Notices) -> Shutdown {
    Shutdown(
      deadline: .seconds(600), flush: {},
      notice: { reason in notices.reasons.withLock { $0.append(reason) } })
  }

  @Test func theFirstRequestIsNoticedOnce() {
    let notices = Notices()
    let shutdown = Self.shutdown(notices)
    shutdown.request(.brokenPipe)
    shutdown.request(.quit)
    #expect(notices.reasons.withLock { $0 } == [.brokenPipe])
    #expect(shutdown.settle() == .brokenPipe)
  }

  /// A reader that leaves after the run's end was decided (`| head -n 1` reading `end`) changes
  /// nothing about how the run ends: it is not noticed, so no recording holds it.
  @Test func aRequestAfterTheEndIsSettledIsNotNoticed() {
    let notices = Notices()
    let shutdown = Self.shutdown(notices)
    #expect(shutdown.settle() == nil)
    shutdown.request(.brokenPipe)
    #expect(notices.reasons.withLock { $0 } == [])
  }
}
