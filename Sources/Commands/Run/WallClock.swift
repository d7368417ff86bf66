#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The wall-clock time a run started, for the `start` event: runs can be matched with server logs.
///
/// Everything a flow waits on uses its injected clock; this is only a label. On virtual time it
/// is the fixed ``virtualEpoch``, so replays stay byte for byte the same.
enum WallClock {
  /// The `started_at` of every `--clock virtual` run.
  static let virtualEpoch = "1970-01-01T00:00:00.000Z"

  /// Now, in UTC, as RFC 3339 with milliseconds: `2026-12-01T15:52:22.123Z`.
  static func now() -> String {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return format(seconds: spec.tv_sec, milliseconds: Int(spec.tv_nsec / 1_000_000))
  }

  /// `seconds` since the Unix epoch, in UTC, as RFC 3339 with milliseconds.
  static func format(seconds: time_t, milliseconds: Int) -> String {
    var seconds = seconds
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func padded(_ value: Int32, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-"
      + "\(padded(parts.tm_mday, 2))T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):"
      + "\(padded(parts.tm_sec, 2)).\(padded(Int32(milliseconds), 3))Z"
  }
}
