import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loading indicator on stderr that only draws: it never starts, restarts or duplicates work.
///
/// A SwiftUI loading overlay once restarted its view's task forever, because drawing it changed
/// the view's identity. Here the spinner is a pure observer: it learns from the event stream which
/// effects are in flight (those `isLoading` accepts, e.g. `fetch`) and redraws on its own clock
/// loop; it holds no reference to the store, so drawing cannot touch the work.
package final class Spinner: Sendable {
  private struct State {
    var inFlight: Set<Int> = []
    var frame = 0
    var visible = false
    var redraws = 0
  }

  static let frames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

  private let state = Locked(State())
  private let isLoading: @Sendable (String) -> Bool
  private let write: @Sendable (String) -> Void
  private let columns: @Sendable () -> Int?

  /// - Parameters:
  ///   - isLoading: Whether an effect with this label means "loading".
  ///   - columns: The terminal's width, asked before each frame so a resize is followed; `nil`
  ///     when unknown (then the full frame is drawn).
  ///   - write: Writes to stderr (and flushes).
  package init(
    isLoading: @escaping @Sendable (String) -> Bool,
    columns: @escaping @Sendable () -> Int? = { Spinner.terminalColumns(fd: 2) },
    write: @escaping @Sendable (String) -> Void
  ) {
    self.isLoading = isLoading
    self.columns = columns
    self.write = write
  }

  /// The width of the terminal on `fd` (`TIOCGWINSZ`), or `nil`.
  package static func terminalColumns(fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// The frame's text cut to fit `columns` with a column to spare, so the cursor never wraps
  /// to a new line; `nil` when not even the spinner character fits.
  static func fitted(_ text: String, columns: Int?) -> String? {
    guard let columns else { return text }
    guard columns >= 2 else { return nil }
    return String(text.prefix(columns - 1))
  }

  /// How many frames were drawn.
  package var redraws: Int { state.withLock { $0.redraws } }

  /// How many loading effects are in flight: the spinner draws while there is one.
  var inFlight: Int { state.withLock { $0.inFlight.count } }

  /// Learns from one printed event; clears the spinner line first so the event prints cleanly.
  package func observe(_ event: ObservedEvent) {
    clear()
    switch event {
    case .effectStarted(let serial, let label, _) where isLoading(label):
      state.withLock { _ = $0.inFlight.insert(serial) }
    case .effectFinished(let serial, _):
      state.withLock { _ = $0.inFlight.remove(serial) }
    default:
      break
    }
  }

  /// Redraws every `interval` until cancelled; run it as a child task of the root.
  package func run(clock: any Clock<Duration>, interval: Duration = .milliseconds(80)) async {
    while !Task.isCancelled {
      draw()
      do {
        try await clock.sleep(for: interval)
      } catch {
        break
      }
    }
    clear()
  }

  private func draw() {
    let width = columns()
    let text: String? = state.withLock { state in
      guard !state.inFlight.isEmpty,
        let frame = Spinner.fitted("\(Spinner.frames[state.frame]) loading…", columns: width)
      else { return nil }
      state.frame = (state.frame + 1) % Spinner.frames.count
      state.visible = true
      state.redraws += 1
      return "\r" + frame
    }
    if let text { write(text) }
  }

  /// Erases the spinner line if it is shown.
  package func clear() {
    let wasVisible = state.withLock { state in
      defer { state.visible = false }
      return state.visible
    }
    if wasVisible { write("\r\u{1B}[K") }
  }
}
