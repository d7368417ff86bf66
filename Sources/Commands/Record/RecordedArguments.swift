/// The command line as a recording's header holds it: `--header` values and URL credentials
/// redacted, as every output shows them.
package enum RecordedArguments {
  /// `arguments` with each `--header` value as `Name: <redacted>` and every URL's userinfo
  /// replaced.
  package static func redacted(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var headerValueNext = false
    var optionsEnded = false
    for argument in arguments {
      var shown = URLAuthority.redactingUserinfo(argument)
      if headerValueNext {
        shown = ExternalCommand.redacted(header: argument)
        headerValueNext = false
      } else if !optionsEnded, argument == "--header" {
        headerValueNext = true
      } else if !optionsEnded, argument.hasPrefix("--header=") {
        shown = "--header=" + ExternalCommand.redacted(header: String(argument.dropFirst(9)))
      } else if argument == "--" {
        optionsEnded = true
      }
      result.append(shown)
    }
    return result
  }
}
