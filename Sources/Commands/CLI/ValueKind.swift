/// The kind of value an option or argument takes.
///
/// One kind drives three things at once: how the parser validates the text, how help names it,
/// and what the shell completion scripts offer for it.
package enum ValueKind: Sendable, Equatable {
  /// Any text.
  case string
  /// A whole number, possibly negative.
  case int
  /// A whole number that is 0 or more.
  case nonNegativeInt
  /// A whole number that is 1 or more.
  case positiveInt
  /// A finite decimal number.
  case double
  /// A number with a unit, such as `300ms`; see ``parseDuration(_:)``.
  case duration
  /// A path, or `-` for standard input; completions offer files.
  case file
  /// A path the run writes (`--trace`, `--record`); completions offer files.
  case outputFile
  /// A path to a file the run reads whole (a recording to replay); `-` is not standard input
  /// here. Completions offer files.
  case regularFile
  /// An absolute URL with a scheme and a host, such as `http://localhost:8080`.
  case url
  /// A shell command line, run with `/bin/sh -c`; completions offer command names.
  case command
  /// One of a fixed list of words; completions offer the list.
  case choice([String])
  /// Any text; completions offer these words as typical values, such as `unbounded` for a
  /// value whose other forms (`newest:N`) cannot be listed.
  case suggested([String])

  /// Whether the value is a number (`.int`, `.nonNegativeInt`, `.positiveInt`, `.double`).
  var isNumber: Bool {
    switch self {
    case .int, .nonNegativeInt, .positiveInt, .double: true
    default: false
    }
  }

  /// The placeholder help shows for a value of this kind when the spec names none.
  var defaultValueName: String {
    switch self {
    case .string, .suggested: "VALUE"
    case .command: "CMD"
    case .int, .nonNegativeInt, .positiveInt: "N"
    case .double: "NUMBER"
    case .duration: "DURATION"
    case .file, .outputFile, .regularFile: "FILE"
    case .url: "URL"
    case .choice: "CHOICE"
    }
  }
}
