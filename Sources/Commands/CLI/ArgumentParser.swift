/// Parses a command line against the command table.
///
/// Accepted forms: `--name value`, `--name=value`, `-q`, clustered flags (`-qx`), a
/// value-taking short option last in a cluster (`-ql 300ms`), and `--` to end options.
/// Global options may come before or after the subcommand; a subcommand's own options only
/// after it. A value may not start with `-` unless it is a negative number, `-` itself, or,
/// right after an option that takes a value, `-` and a digit or `.` such as `-1s`, which no
/// option could be, or, right after an option that takes a number, any text a number parser
/// reads, such as `-inf`, which then gets the option's own message (use `--name=-text`
/// otherwise). Giving a non-repeatable option twice keeps
/// the last value.
/// `-h`/`--help` anywhere before `--` asks for help; it wins over `--version`, and both win
/// over errors elsewhere on the line (except an unknown subcommand, for which there is no
/// help to show). A line with no subcommand, only global options, shows the top-level help;
/// `help` and `completions` refuse the global options, which could not change their output.
///
/// - Parameters:
///   - arguments: The command line without the program name (`argv[1...]`).
///   - spec: The command table.
/// - Returns: What to do: show help, the version, a completion script, or run a subcommand.
/// - Throws: ``UsageError`` for anything the table does not accept; exit with status 64.
package func parse(_ arguments: [String], spec: ProgramSpec) throws(UsageError) -> ParseResult {
  if arguments.isEmpty { return .help(command: nil) }
  var scanner = ArgumentScanner(program: spec)
  return try scanner.scan(arguments)
}

/// The state of one left-to-right pass over the arguments.
///
/// It keeps going after the first error so that a later `--help` still gets help, then
/// reports only the first error, which is the one the user should fix first.
private struct ArgumentScanner {
  let program: ProgramSpec
  var command: CommandSpec?
  /// The options given so far, by long name: each value checked and converted as it is read.
  var given: [String: ParsedOption] = [:]
  var positionals: [String] = []
  var wantsHelp = false
  var wantsVersion = false
  var firstError: UsageError?
  var unknownSubcommand: UsageError?

  init(program: ProgramSpec) {
    self.program = program
  }

  mutating func scan(_ arguments: [String]) throws(UsageError) -> ParseResult {
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      do throws(UsageError) {
        if optionsEnded || !Self.looksLikeOption(argument) {
          try takePositional(argument)
        } else if argument == "--" {
          optionsEnded = true
        } else if argument == "--help" || argument == "-h" {
          wantsHelp = true
        } else if argument == "--version" {
          wantsVersion = true
        } else if argument.hasPrefix("--") {
          try takeLong(argument, from: arguments, at: &index)
        } else {
          try takeShort(argument, from: arguments, at: &index)
        }
      } catch {
        firstError = firstError ?? error
      }
    }
    if wantsHelp {
      if let unknownSubcommand { throw unknownSubcommand }
      return .help(command: command?.name)
    }
    if wantsVersion { return .version(json: given[ProgramSpec.jsonOption.spec.name] != nil) }
    if let firstError { throw firstError }
    return try finish()
  }

  /// Whether `argument` is an option rather than a value: `-` alone and negative numbers
  /// such as `-5` or `-.5` are values.
  static func looksLikeOption(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), argument.count > 1 else { return false }
    let second = argument.dropFirst().first
    let isNegativeNumber =
      second.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true && Double(argument) != nil
    return !isNegativeNumber
  }

  private var inScope: [OptionSpec] { program.options(for: command) }

  private mutating func takePositional(_ argument: String) throws(UsageError) {
    guard command == nil else {
      positionals.append(argument)
      return
    }
    guard let found = program.command(named: argument) else {
      let error = UsageError.unknownSubcommand(argument, suggestion: subcommandHint(argument))
      unknownSubcommand = unknownSubcommand ?? error
      throw error
    }
    command = found
  }

  private mutating func takeLong(
    _ argument: String, from arguments: [String], at index: inout Int
  ) throws(UsageError) {
    let body = argument.dropFirst(2)
    let name = String(body.prefix { $0 != "=" })
    let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
    if name == "help" || name == "version" {
      throw .unexpectedValue("--\(name)", command: command?.name)
    }
    guard let option = inScope.first(where: { $0.name == name }) else {
      throw unknownOption("--\(name)")
    }
    if option.valueKind == nil {
      guard inline == nil else { throw .unexpectedValue(option.longForm, command: command?.name) }
      given[option.name, default: ParsedOption()].isGiven = true
    } else {
      if let inline {
        try store(inline, for: option)
      } else {
        try store(nextValue(for: option, from: arguments, at: &index), for: option)
      }
    }
  }

  private mutating func takeShort(
    _ argument: String, from arguments: [String], at index: inout Int
  ) throws(UsageError) {
    let letters = Array(argument.dropFirst())
    var options: [OptionSpec?] = []
    for (offset, letter) in letters.enumerated() {
      let option = inScope.first { $0.short == letter }
      let fits =
        option.map { $0.valueKind == nil || offset == letters.count - 1 } ?? (letter == "h")
      guard fits else { throw unknownOption(argument) }
      options.append(option)
    }
    for option in options {
      guard let option else {
        wantsHelp = true
        continue
      }
      if option.valueKind == nil {
        given[option.name, default: ParsedOption()].isGiven = true
      } else {
        try store(nextValue(for: option, from: arguments, at: &index), for: option)
      }
    }
  }

  /// Whether `argument` is shaped like a negative number or duration, such as `-1s` or `-.5`:
  /// never an option, since short options are letters, so the value of the option before it.
  static func looksNegative(_ argument: String) -> Bool {
    let second = argument.dropFirst().first
    return argument.hasPrefix("-")
      && second.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true
  }

  private func nextValue(
    for option: OptionSpec, from arguments: [String], at index: inout Int
  ) throws(UsageError) -> String {
    guard index < arguments.count,
      !Self.looksLikeOption(arguments[index]) || Self.looksNegative(arguments[index])
        || (option.valueKind?.isNumber == true && Double(arguments[index]) != nil)
    else {
      throw .missingValue(option.longForm, command: command?.name)
    }
    index += 1
    return arguments[index - 1]
  }

  /// Checks and converts `text` in one step, and keeps it: after the earlier values of a
  /// repeatable option, else in place of them.
  private mutating func store(_ text: String, for option: OptionSpec) throws(UsageError) {
    let value: any Sendable
    do throws(ValueProblem) {
      value = try option.value(of: text)
    } catch {
      throw .invalidValue(error.message, command: command?.name)
    }
    var parsed = given[option.name] ?? ParsedOption()
    if !option.repeatable { parsed.values = [] }
    parsed.isGiven = true
    parsed.values.append(ParsedOption.Value(text: text, converted: value))
    given[option.name] = parsed
  }

  /// Every option in the command's scope, as given or else with its default converted.
  ///
  /// A default the option cannot read is a mistake in the command table, which
  /// ``ProgramSpec/problems()`` reports; here it stops the program.
  private func scope(of command: CommandSpec) -> [String: ParsedOption] {
    var options: [String: ParsedOption] = [:]
    for option in program.options(for: command) {
      var parsed = given[option.name] ?? ParsedOption()
      if !parsed.isGiven, let text = option.defaultValue {
        do throws(ValueProblem) {
          parsed.values = [ParsedOption.Value(text: text, converted: try option.value(of: text))]
        } catch {
          preconditionFailure("default of '\(option.longForm)' in the table: \(error.message)")
        }
      }
      options[option.name] = parsed
    }
    return options
  }

  /// The likely meaning of an unknown subcommand word: a subcommand spelled nearly so, else the
  /// top-level option spelled so without its dashes (`version` for `--version`).
  private func subcommandHint(_ word: String) -> String? {
    if let near = suggestion(for: word, among: program.allCommandNames) { return near }
    let spellings = program.listedOptions(for: nil).map(\.longForm)
    return spellings.first { $0 == "--" + word }
  }

  /// The error for an option not in scope: a global one the subcommand refuses, misplaced if
  /// some subcommand declares it, otherwise unknown, with a suggestion among the long options
  /// in scope.
  private func unknownOption(_ text: String) -> UsageError {
    if let command, !command.acceptsGlobalOptions,
      program.globalOptions.contains(where: { $0.spellings.contains(text) })
    {
      return .inapplicableOption(text, command: command.name)
    }
    let declaredElsewhere = program.commands.contains { spec in
      spec.options.contains { $0.longForm == text || $0.short.map { "-\($0)" } == text }
    }
    if command == nil, declaredElsewhere { return .misplacedOption(text) }
    let candidates = inScope.map(\.longForm) + ["--help", "--version"]
    let typed = text.hasPrefix("--") || text.count == 2 ? text : "-" + text
    let hint = text.count == 2 ? nil : suggestion(for: typed, among: candidates)
    return .unknownOption(text, command: command?.name, suggestion: hint)
  }

  private func finish() throws(UsageError) -> ParseResult {
    guard let command else { return .help(command: nil) }
    if !command.acceptsGlobalOptions,
      let global = program.globalOptions.first(where: { given[$0.name] != nil })
    {
      throw .inapplicableOption(global.longForm, command: command.name)
    }
    let specs = command.positionals
    let required = specs.filter { !$0.isOptional }.count
    if positionals.count < required {
      throw .missingArgument(specs[positionals.count].displayName, command: command.name)
    }
    if specs.last?.isRepeating != true, positionals.count > specs.count {
      throw .unexpectedArgument(positionals[specs.count], command: command.name)
    }
    for (offset, value) in positionals.enumerated() {
      let spec = specs[min(offset, specs.count - 1)]
      if command.name == "help", program.command(named: value) == nil {
        throw .unknownSubcommand(
          value, suggestion: suggestion(for: value, among: program.allCommandNames))
      }
      if let problem = ValueValidator.problem(with: value, kind: spec.kind, name: spec.displayName)
      {
        throw .invalidValue(problem, command: command.name)
      }
    }
    switch command.name {
    case "help":
      if given[ProgramSpec.manOption.spec.name] != nil {
        if let subcommand = positionals.first {
          throw .invalidValue(
            "'--man' prints the manual of the whole program, not of '\(subcommand)'",
            command: command.name)
        }
        return .manual
      }
      return .help(command: positionals.first)
    case "completions": return .completions(shell: positionals[0])
    default:
      var invocation = Invocation(
        command: command.name, options: scope(of: command), positionals: positionals)
      invocation.readFiles = program.options(for: command).flatMap { option in
        guard option.kind == .value(.file) else { return [String]() }
        return given[option.name]?.values.map(\.text) ?? []
      }
      return .run(invocation)
    }
  }
}
