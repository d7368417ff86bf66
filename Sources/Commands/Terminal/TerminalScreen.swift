import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A full-screen view on the controlling terminal (`/dev/tty`), whatever stdout is.
///
/// ``enter()`` switches to the terminal's alternate screen, as `less` and fzf do, so that
/// ``leave()`` puts back the screen as it was, the shell's lines and the cursor included. The
/// session leaves it on every way a run ends, and around a stop (Ctrl-Z): ``suspend()`` shows
/// the shell's screen, ``resume()`` the view again, which the next ``draw(_:)`` repaints whole.
package final class TerminalScreen: Sendable {
  private struct State {
    var shown = false
    var suspended = false
    /// Whether what is on the screen is no longer the last frame drawn.
    var stale = true
    var last = ""
  }

  private let fd: Int32
  private let state = Locked(State())
  private let resized = Locked<(@Sendable () -> Void)?>(nil)

  /// Calls `redraw` whenever the window changes size (SIGWINCH), on the signal thread.
  package func onResize(_ redraw: @escaping @Sendable () -> Void) {
    resized.withLock { $0 = redraw }
  }

  /// The window changed size: the view is drawn again for it.
  package func windowChanged() {
    resized.withLock { $0 }?()
  }

  private init(fd: Int32) {
    self.fd = fd
  }

  /// The controlling terminal, opened for writing, or else the terminal stdin is (a process
  /// without a controlling terminal reading one); `nil` when there is neither.
  package static func open() -> TerminalScreen? {
    var fd = openTerminal()
    if fd < 0, isatty(0) == 1 { fd = fcntl(0, F_DUPFD_CLOEXEC, 3) }
    guard fd >= 0 else { return nil }
    guard isatty(fd) == 1 else {
      close(fd)
      return nil
    }
    return TerminalScreen(fd: fd)
  }

  /// The terminal's size in columns and rows; 80×24 when it cannot say.
  package var size: (columns: Int, rows: Int) {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
      return (80, 24)
    }
    return (Int(size.ws_col), Int(size.ws_row))
  }

  /// Switches to the alternate screen and clears it.
  package func enter() {
    state.withLock { state in
      guard !state.shown else { return }
      state.shown = true
      state.stale = true
      write(Self.enterSequence)
    }
  }

  /// Whether the screen must be repainted whole: it was shown again after a stop.
  package var isStale: Bool { state.withLock { $0.stale } }

  /// Replaces what the screen shows with `frame`, a sequence that paints it (see the picker's
  /// frame); nothing while the view is not shown, or when the screen already shows it.
  package func draw(_ frame: String) {
    state.withLock { state in
      guard state.shown, !state.suspended, state.stale || frame != state.last else { return }
      state.stale = false
      state.last = frame
      write(frame)
    }
  }

  /// Puts the screen back as it was before ``enter()``; later calls do nothing.
  package func leave() {
    state.withLock { state in
      guard state.shown else { return }
      state.shown = false
      if !state.suspended { write(Self.leaveSequence) }
    }
  }

  /// Shows the shell's screen for a stop.
  package func suspend() {
    state.withLock { state in
      guard state.shown, !state.suspended else { return }
      state.suspended = true
      write(Self.leaveSequence)
    }
  }

  /// Shows the view again after a stop; the next frame repaints it.
  package func resume() {
    state.withLock { state in
      guard state.shown, state.suspended else { return }
      state.suspended = false
      state.stale = true
      write(Self.enterSequence)
    }
  }

  /// The alternate screen, cleared, the cursor at its top.
  static let enterSequence = "\u{1B}[?1049h\u{1B}[H\u{1B}[2J"
  /// The cursor shown again, the normal screen back.
  static let leaveSequence = "\u{1B}[?25h\u{1B}[?1049l"

  private func write(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { buffer in
        buffer.baseAddress.map { writeBytes(fd, $0, buffer.count) } ?? 0
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}

// At file scope: inside `TerminalScreen` the names `open` and `write` are its own.
private func openTerminal() -> Int32 {
  open("/dev/tty", O_WRONLY | O_CLOEXEC | O_NOCTTY)
}

private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}
