import LoadctlCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts a terminal in raw mode for single-key input and always puts it back exactly as it was.
///
/// Raw mode is entered only for interactive keys, and the saved settings are restored on every
/// way a run ends — `q`, end of input, Ctrl-C, Ctrl-\, SIGTERM, SIGHUP, an error, a forced exit —
/// so `stty -g` reads the same before and after. Signals from the keyboard are off, so Ctrl-C,
/// Ctrl-Z and Ctrl-\ arrive as bytes (see ``Key``). A stop (Ctrl-Z, SIGTSTP) puts the saved
/// settings back for the shell and ``reenter()`` makes the terminal raw again after SIGCONT.
/// Output processing stays on, so `\n` still starts a new line. Keys typed ahead, before raw mode
/// began, are not discarded: they are read as keys.
package final class RawMode: Sendable {
  private let fd: Int32
  private let saved: Locked<termios?>
  private let raw: termios

  private init(fd: Int32, saved: termios, raw: termios) {
    self.fd = fd
    self.saved = Locked(saved)
    self.raw = raw
  }

  /// Enters raw mode on `fd` if it is a terminal; `nil` otherwise.
  package static func enter(fd: Int32 = 0) -> RawMode? {
    guard isatty(fd) == 1 else { return nil }
    var original = termios()
    guard tcgetattr(fd, &original) == 0 else { return nil }
    var raw = original
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    withUnsafeMutableBytes(of: &raw.c_cc) { controls in
      controls[Int(VMIN)] = 1  // a read returns after one byte
      controls[Int(VTIME)] = 0  // and never times out
    }
    // Keys typed before raw mode are kept, to be read as keys.
    guard tcsetattr(fd, TCSADRAIN, &raw) == 0 else { return nil }
    return RawMode(fd: fd, saved: original, raw: raw)
  }

  /// Restores the saved settings; later calls do nothing.
  ///
  /// - Parameter forced: Apply them at once instead of after pending output drains (which a
  ///   terminal nobody reads would never do), for a forced exit.
  package func restore(forced: Bool = false) {
    guard
      var original = saved.withLock({ saved in
        defer { saved = nil }; return saved
      })
    else {
      return
    }
    _ = tcsetattr(fd, forced ? TCSANOW : TCSAFLUSH, &original)
  }

  /// Puts the saved settings back for a stop, keeping raw mode to come back to.
  package func suspend() {
    guard var original = saved.withLock({ $0 }) else { return }
    _ = tcsetattr(fd, TCSANOW, &original)
  }

  /// Makes the terminal raw again after a stop, unless raw mode was restored for good.
  package func reenter() {
    guard saved.withLock({ $0 }) != nil else { return }
    var settings = raw
    _ = tcsetattr(fd, TCSANOW, &settings)
  }
}
