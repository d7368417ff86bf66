import Foundation

extension LoadctlProcess {
  /// Sends `signal` (SIGSTOP, or SIGTSTP as Ctrl-Z does), waits until the kernel shows the
  /// process stopped, then keeps it stopped for at least `duration`, measured from the stop
  /// (under load it only lasts longer). The caller continues it.
  func stop(by signal: Int32, forAtLeast duration: Duration) async throws {
    send(signal: signal)
    _ = try await Polling.until("loadctl stopped") {
      ChildProcesses.state(of: pid) == "T" ? true : nil
    }
    try await Task.sleep(for: duration)
  }
}
