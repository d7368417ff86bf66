/// Attoseconds in one of each unit a duration may be written in, largest first.
///
/// Every scale is a small number times a power of ten, so dividing it by ten while reading the
/// digits after the point stays exact down to the attosecond.
private let durationUnits: [(suffix: String, attoseconds: Int128)] = [
  ("h", 3_600_000_000_000_000_000_000),
  ("m", 60_000_000_000_000_000_000),
  ("s", 1_000_000_000_000_000_000),
  ("ms", 1_000_000_000_000_000),
  ("us", 1_000_000_000_000),
  ("µs", 1_000_000_000_000),
  ("μs", 1_000_000_000_000),
  ("ns", 1_000_000_000),
]

private let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000

/// The longest duration accepted: 1,000,000,000 s, about 31 years.
///
/// Longer values are no use as waits or timeouts, and they overflow what the program later does
/// with a duration: milliseconds for JSON (`seconds * 1_000_000` in `Int64`), a sleep's deadline
/// (`now + duration`, whose seconds must fit `Int64`), and `profile`'s backoff doubled up to
/// 2^20 times, each of which would trap on `9223372036854775807s`.
package let maxDuration = Duration.seconds(1_000_000_000)

/// The forms accepted for a duration, for error messages.
let durationForms = "use a number with a unit, at most 1000000000s: 250us, 300ms, 1.5s, 2m, 1h"

/// Reads a duration such as `300ms`, `1.5s`, `2m`, `250us` or `0`.
///
/// The grammar is a non-negative decimal number (digits, optionally a point and more digits)
/// directly followed by one of `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`. A bare `0` is allowed
/// because it needs no unit; any other number without a unit is ambiguous and rejected.
/// Spaces, signs, exponents, `inf`/`nan` and values longer than ``maxDuration`` are rejected.
///
/// - Parameter text: The text as the user typed it.
/// - Returns: The duration, or `nil` if `text` is not in the form above.
package func parseDuration(_ text: String) -> Duration? {
  if text == "0" { return .zero }
  let number = text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
  guard let unit = durationUnits.first(where: { $0.suffix == text[number.endIndex...] }) else {
    return nil
  }
  let parts = number.split(separator: ".", omittingEmptySubsequences: false)
  guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }) else { return nil }

  var total: Int128 = 0
  for digit in parts[0] {
    guard let value = digit.wholeNumberValue else { return nil }
    let (shifted, overflow1) = total.multipliedReportingOverflow(by: 10)
    let (sum, overflow2) = shifted.addingReportingOverflow(Int128(value))
    guard !overflow1, !overflow2 else { return nil }
    total = sum
  }
  let (scaled, overflow) = total.multipliedReportingOverflow(by: unit.attoseconds)
  guard !overflow else { return nil }
  total = scaled
  var place = unit.attoseconds
  for digit in parts.count == 2 ? parts[1] : "" {
    guard let value = digit.wholeNumberValue else { return nil }
    place /= 10
    let (sum, overflow) = total.addingReportingOverflow(Int128(value) * place)
    guard !overflow else { return nil }
    total = sum
  }
  guard total <= Int128(maxDuration.components.seconds) * attosecondsPerSecond else { return nil }
  return Duration(
    secondsComponent: Int64(total / attosecondsPerSecond),
    attosecondsComponent: Int64(total % attosecondsPerSecond))
}

/// Writes a duration the way a user would type it: `300ms`, `1s`, `1.5s`, `2m`.
///
/// Picks the largest unit that shows the value as at least 1 with at most three decimals,
/// so the text reads back through ``parseDuration(_:)`` to the same value where it can.
/// Zero is `0s`; anything finer than the nanosecond is cut to three decimals of `ns`.
///
/// - Parameter duration: Any duration; negative ones get a leading `-`.
/// - Returns: The short text.
package func formatDuration(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  let total = Int128(seconds) * attosecondsPerSecond + Int128(attoseconds)
  if total == 0 { return "0s" }
  let sign = total < 0 ? "-" : ""
  let magnitude = total.magnitude
  let units = durationUnits.filter { $0.suffix != "µs" && $0.suffix != "μs" }
  for unit in units {
    let scale = UInt128(unit.attoseconds)
    // Every scale is a multiple of 1000; `magnitude * 1000` would overflow for long durations.
    let isExact = magnitude % (scale / 1000) == 0
    if magnitude >= scale && (isExact || unit.suffix == "ns") {
      return sign + decimal(magnitude, over: scale) + unit.suffix
    }
  }
  return sign + decimal(magnitude, over: UInt128(1_000_000_000)) + "ns"
}

/// `value / scale` with up to three decimals, trailing zeros dropped.
private func decimal(_ value: UInt128, over scale: UInt128) -> String {
  let whole = value / scale
  let thousandths = (value % scale) * 1000 / scale
  guard thousandths > 0 else { return "\(whole)" }
  var fraction = String(thousandths)
  fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
  while fraction.hasSuffix("0") { fraction.removeLast() }
  return "\(whole).\(fraction)"
}
