extension ProgramSpec {
  /// Mistakes in the command table itself, one sentence each; empty when the table is sound.
  ///
  /// The parser, help and completions trust the table: the parser stops the program when a
  /// default does not parse, and the completion scripts assume names are plain words. A
  /// test over the real table catches such mistakes before a user does:
  ///
  /// ```swift
  /// #expect(CommandTable.program.problems() == [])
  /// ```
  ///
  /// - Returns: Duplicate or reserved names, names and choices that are not plain words,
  ///   defaults that are not valid values, positionals in an order the parser cannot match,
  ///   and exit statuses out of numeric order.
  package func problems() -> [String] {
    var problems: [String] = []
    var commandNames: Set<String> = []
    for command in commands {
      if ["help", "completions"].contains(command.name) {
        problems.append("subcommand '\(command.name)' is built in")
      }
      if !commandNames.insert(command.name).inserted {
        problems.append("subcommand '\(command.name)' appears twice")
      }
      if !Self.isWord(command.name) {
        problems.append("subcommand '\(command.name)' is not a plain lowercase word")
      }
      problems += positionalProblems(command)
    }
    problems += optionProblems(globalOptions, scope: "the global options")
    for command in commands {
      problems += optionProblems(options(for: command), scope: "'\(command.name)'")
        .filter { !problems.contains($0) }
    }
    let codes = exitStatuses.map { Int($0.code.prefix { $0.isNumber }) ?? -1 }
    if codes != codes.sorted() { problems.append("the exit statuses are not in numeric order") }
    return problems
  }

  private func optionProblems(_ options: [OptionSpec], scope: String) -> [String] {
    var problems: [String] = []
    var names: Set<String> = ["help", "version"]
    var shorts: Set<Character> = ["h"]
    for option in options {
      if !names.insert(option.name).inserted {
        problems.append("'\(option.longForm)' is declared twice or is built in, in \(scope)")
      }
      if let short = option.short, !shorts.insert(short).inserted {
        problems.append("'-\(short)' is declared twice or is built in, in \(scope)")
      }
      if !Self.isWord(option.name) {
        problems.append("'\(option.longForm)' is not a plain lowercase word")
      }
      if let short = option.short, !(short.isASCII && short.isLetter) {
        problems.append("'-\(short)' of '\(option.longForm)' is not a letter")
      }
      switch option.kind {
      case .flag:
        if option.defaultValue != nil || option.repeatable {
          problems.append("flag '\(option.longForm)' cannot have a default or repeat")
        }
      case .value(let kind):
        if let words = Self.completionWords(kind),
          words.isEmpty || !words.allSatisfy({ Self.isChoiceWord($0) })
        {
          problems.append("'\(option.longForm)' needs plain words as choices")
        }
        if let value = option.defaultValue {
          do throws(ValueProblem) {
            _ = try option.value(of: value)
          } catch {
            problems.append("default of '\(option.longForm)': \(error.message)")
          }
        }
      }
    }
    return problems
  }

  private func positionalProblems(_ command: CommandSpec) -> [String] {
    var problems: [String] = []
    for (index, positional) in command.positionals.enumerated() {
      let later = command.positionals[(index + 1)...]
      if let words = Self.completionWords(positional.kind),
        words.isEmpty || !words.allSatisfy({ Self.isChoiceWord($0) })
      {
        problems.append(
          "'\(positional.displayName)' of '\(command.name)' needs plain words as choices")
      }
      if positional.isRepeating, !later.isEmpty {
        problems.append("'\(positional.displayName)' of '\(command.name)' repeats but is not last")
      }
      if positional.isOptional, later.contains(where: { !$0.isOptional }) {
        problems.append(
          "'\(positional.displayName)' of '\(command.name)' is optional before a required one")
      }
    }
    return problems
  }

  /// Lowercase ASCII letters, digits and inner dashes, starting with a letter: safe to use
  /// unquoted in every shell's completion script.
  private static func isWord(_ text: String) -> Bool {
    guard let first = text.first, first.isASCII, first.isLowercase, text.last != "-" else {
      return false
    }
    return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
  }

  /// The words a completion script offers for `kind`, or `nil` when it offers none.
  private static func completionWords(_ kind: ValueKind) -> [String]? {
    switch kind {
    case .choice(let words), .suggested(let words): words
    default: nil
    }
  }

  private static func isChoiceWord(_ text: String) -> Bool {
    !text.isEmpty
      && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.+:".contains($0)) }
  }
}
