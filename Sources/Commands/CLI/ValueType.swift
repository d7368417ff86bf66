import LoadctlCore

/// A ``ValueKind`` with the Swift type its values are read as, such as `.duration` for
/// `Duration`: what an ``OptionKey`` is made from.
///
/// Its `read` checks a value's text and converts it in one step, so the parser calls it once per
/// value and once per default, and nothing reads the text again.
///
/// ```swift
/// let latency = OptionKey.value("latency", .duration, help: "Delay.", default: "1s")
/// let policy = OptionKey.value("policy", .choice([EffectPolicy.drop, .latest]), help: "…")
/// ```
struct ValueType<Value: Sendable>: Sendable {
  /// How the parser, help, the manual page and completions describe the value.
  let kind: ValueKind
  /// `text` as a `Value`; `name` is how messages refer to the option, such as `--latency`.
  let read: @Sendable (_ text: String, _ name: String) throws(ValueProblem) -> Value
}

extension ValueType<String> {
  /// Any text.
  static var string: Self { checked(.string) }
  /// A path, or `-` for standard input.
  static var file: Self { checked(.file) }
  /// A path the run writes.
  static var outputFile: Self { checked(.outputFile) }
  /// An absolute URL with a scheme and a host.
  static var url: Self { checked(.url) }
  /// A shell command line.
  static var command: Self { checked(.command) }

  /// Any text; completions offer `words`.
  static func suggested(_ words: [String]) -> Self { checked(.suggested(words)) }

  /// One of `words`, kept as text.
  static func choice(_ words: [String]) -> Self { checked(.choice(words)) }

  /// The text itself, once ``ValueValidator`` has accepted it as a value of `kind`.
  private static func checked(_ kind: ValueKind) -> Self {
    Self(kind: kind) { text, name throws(ValueProblem) in
      try ValueValidator.checked(text, kind: kind, name: name)
    }
  }
}

extension ValueType<Int> {
  /// A whole number, possibly negative.
  static var int: Self { integer(.int) }
  /// A whole number that is 0 or more.
  static var nonNegativeInt: Self { integer(.nonNegativeInt) }
  /// A whole number that is 1 or more.
  static var positiveInt: Self { integer(.positiveInt) }

  private static func integer(_ kind: ValueKind) -> Self {
    Self(kind: kind) { text, name throws(ValueProblem) in
      try ValueValidator.integer(text, kind: kind, name: name)
    }
  }
}

extension ValueType<Double> {
  /// A finite decimal number.
  static var double: Self {
    Self(kind: .double) { text, name throws(ValueProblem) in
      try ValueValidator.number(text, name: name)
    }
  }
}

extension ValueType<Duration> {
  /// A number with a unit, such as `300ms`; see ``parseDuration(_:)``.
  static var duration: Self {
    Self(kind: .duration) { text, name throws(ValueProblem) in
      try ValueValidator.duration(text, name: name)
    }
  }

  /// A duration of at least 1ns, such as a timeout, for which `0` (or less than a clock can
  /// wait) could only be a mistake; help and completions show it as any ``duration``.
  static var positiveDuration: Self {
    Self(kind: .duration) { text, name throws(ValueProblem) in
      try ValueValidator.positiveDuration(text, name: name)
    }
  }
}

extension ValueType where Value: RawRepresentable<String> {
  /// One of `cases`, written as its raw value; help and completions list them in this order.
  static func choice(_ cases: [Value]) -> Self {
    let words = cases.map(\.rawValue)
    return Self(kind: .choice(words)) { text, name throws(ValueProblem) in
      cases[try ValueValidator.choice(text, among: words, name: name)]
    }
  }
}

extension ValueType<[Lint]> {
  /// Lint names separated by commas, or `all`; completions offer the names.
  static var lints: Self {
    let words = Lint.all.map(\.name) + ["all"]
    return Self(kind: .suggested(words)) { text, name throws(ValueProblem) in
      var lints: [Lint] = []
      for word in text.split(separator: ",", omittingEmptySubsequences: false) {
        let word = word.trimmingSpaces
        if word == "all" {
          lints += Lint.all
        } else if let lint = Lint(named: word) {
          lints.append(lint)
        } else {
          let list = words.joined(separator: ", ")
          throw ValueProblem(
            "invalid lint '\(word.escapingControlCharacters)' for '\(name)' (choose from \(list))")
        }
      }
      return lints
    }
  }
}
