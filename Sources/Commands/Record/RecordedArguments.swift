/// The command line as a recording's header holds it: `--header` and `--url` values redacted,
/// as every output shows them.
package enum RecordedArguments {
  /// `arguments` with each `--header` value as `Name: <redacted>` and each `--url` value as
  /// ``URLAuthority/redactingSecrets(_:)`` shows it; every other argument as it was given.
  ///
  /// Only those two options' values change: a replay parses the rest again, and a value shown
  /// verbatim in the run's events (an `--exec` command that holds a URL) must read the same in
  /// its replay. A value never starts with `-` (the parser refuses it), so the argument after
  /// `--header` or `--url` is always its value.
  package static func redacted(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var redact: ((String) -> String)?
    var optionsEnded = false
    for argument in arguments {
      if let next = redact {
        result.append(next(argument))
        redact = nil
        continue
      }
      var shown = argument
      if !optionsEnded {
        if argument == "--" {
          optionsEnded = true
        } else if argument == "--header" {
          redact = ExternalCommand.redacted(header:)
        } else if argument == "--url" {
          redact = URLAuthority.redactingSecrets
        } else if argument.hasPrefix("--header=") {
          shown = "--header=" + ExternalCommand.redacted(header: String(argument.dropFirst(9)))
        } else if argument.hasPrefix("--url=") {
          shown = "--url=" + URLAuthority.redactingSecrets(String(argument.dropFirst(6)))
        }
      }
      result.append(shown)
    }
    return result
  }
}
