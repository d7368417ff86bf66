/// A small, fast, documented random number generator whose sequence depends only on its seed.
///
/// `--seed N` must print the same values on every machine and every Swift version, and a script
/// must be able to predict them; `SystemRandomNumberGenerator` can do neither, and the standard
/// library does not promise how `Double.random(in:using:)` maps generator output to values. This
/// is SplitMix64 (Steele, Lea and Flood, 2014; the reference C by Sebastiano Vigna): the state
/// moves by the golden-ratio constant on each call, and the output is the state run through two
/// xor-shift-multiply rounds. It passes BigCrush, needs 8 bytes of state, and is trivially ported:
///
/// ```python
/// def splitmix64(state):            # yields the same values as SeededGenerator(seed: state)
///     mask = (1 << 64) - 1
///     while True:
///         state = (state + 0x9E3779B97F4A7C15) & mask
///         z = state
///         z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
///         z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
///         yield z ^ (z >> 31)
/// ```
///
/// Map outputs to values with the explicit helpers here (or document your own mapping) rather
/// than with the standard library's `random(in:using:)`, whose algorithm may change.
///
/// ```swift
/// var generator = SeededGenerator(seed: 1_234_567)
/// generator.next()            // 6457827717110365317
/// generator.nextUnitDouble()  // in 0..<1, from the top 53 bits of the next output
/// ```
///
/// Not for secrets: the whole future sequence follows from one output.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
  /// The golden-ratio increment of SplitMix64.
  private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// The current state; the next output is derived from `state + gamma`.
  public private(set) var state: UInt64

  /// Creates a generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= Self.gamma
    return Self.mix(state)
  }

  /// The `index`-th output (1-based) of the generator seeded with `seed`, computed directly:
  /// SplitMix64's *n*-th output is `mix(seed + n × γ)`, so no earlier output is needed.
  public static func output(seed: UInt64, index: UInt64) -> UInt64 {
    mix(seed &+ index &* gamma)
  }

  /// SplitMix64's output function: two xor-shift-multiply rounds.
  private static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A double in `0..<1`: the top 53 bits of the next output, times 2⁻⁵³.
  ///
  /// Every value is a multiple of 2⁻⁵³, and each is equally likely.
  public mutating func nextUnitDouble() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// A seed from the system's random source, below 2⁵³.
  ///
  /// Programs that print the seed they chose (so a run can be repeated with `--seed`) print it
  /// in JSON, where integers above 2⁵³ lose precision in JavaScript and `jq`; this range keeps
  /// every seed exact there.
  public static func systemSeed() -> UInt64 {
    var system = SystemRandomNumberGenerator()
    return system.next() >> 11
  }
}
