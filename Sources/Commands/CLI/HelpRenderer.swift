#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Renders `--help` text from the command table, in swift-argument-parser's layout.
///
/// Sections: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`, `SUBCOMMANDS:` and
/// `EXIT STATUS:` (top level), `EXAMPLES:`; wrapped to ``width`` with hanging indents.
///
/// ```swift
/// print(HelpRenderer(program: spec, width: HelpRenderer.terminalWidth).render(command: "run"))
/// ```
package struct HelpRenderer: Sendable {
  package var program: ProgramSpec
  /// The number of columns to wrap to.
  package var width: Int

  package init(program: ProgramSpec, width: Int = 80) {
    self.program = program
    self.width = width
  }

  /// The width to wrap to for a `COLUMNS` value: the number if it is a sensible width, else 80.
  package static func width(columns: String?) -> Int {
    guard let columns, let value = Int(columns), (20...1000).contains(value) else { return 80 }
    return value
  }

  /// The width from the `COLUMNS` environment variable, else 80.
  package static var terminalWidth: Int {
    width(columns: getenv("COLUMNS").map { String(cString: $0) })
  }

  /// The help for a subcommand (built-ins included), or the top-level help when `command` is
  /// `nil` or not in the table. No trailing newline.
  package func render(command: String?) -> String {
    guard let command, let spec = program.command(named: command) else { return renderTopLevel() }
    return render(spec)
  }

  private func renderTopLevel() -> String {
    var sections = [
      wrap(program.overview, prefix: "OVERVIEW: "),
      ["USAGE: \(program.name) <subcommand> [options]"],
      section(
        "OPTIONS:",
        rows: program.listedOptions(for: nil).map(row) + [Self.optionsEnd]),
      section("SUBCOMMANDS:", rows: program.allCommands.map { ($0.name, $0.summary) })
        + ["", "  See '\(program.name) help <subcommand>' for detailed help."],
    ]
    if !program.exitStatuses.isEmpty {
      sections.append(
        section("EXIT STATUS:", rows: program.exitStatuses.map { ($0.code, $0.meaning) }))
    }
    return join(sections)
  }

  private func render(_ command: CommandSpec) -> String {
    var sections = [wrap(command.summary, prefix: "OVERVIEW: ")]
    if !command.discussion.isEmpty { sections.append(wrap(command.discussion)) }
    sections.append(["USAGE: \(program.name) \(command.usageTail)"])
    if !command.positionals.isEmpty {
      sections.append(section("ARGUMENTS:", rows: command.positionals.map(row)))
    }
    sections.append(section("OPTIONS:", rows: program.listedOptions(for: command).map(row)))
    if !command.examples.isEmpty {
      sections.append(["EXAMPLES:"] + command.examples.map { "  " + $0 })
    }
    return join(sections)
  }

  /// The last row of the top-level options: what `--` does.
  static let optionsEnd = (
    "--", "End the options: what follows is an argument, even when it starts with '-'."
  )

  private func row(_ option: OptionSpec) -> (String, String) {
    (option.helpLabel, Self.text(for: option))
  }

  private func row(_ positional: PositionalSpec) -> (String, String) {
    (positional.displayName, Self.text(for: positional))
  }

  /// An option's help followed by its choices, default and whether it repeats, as help and the
  /// manual page show it: `Simulated latency. (default: 300ms)`.
  static func text(for option: OptionSpec) -> String {
    var notes: [String] = []
    if case .choice(let choices) = option.valueKind {
      notes.append("values: " + choices.joined(separator: ", "))
    }
    if let defaultValue = option.defaultValue { notes.append("default: \(defaultValue)") }
    if option.repeatable { notes.append("can be repeated") }
    return annotated(option.help, notes)
  }

  /// A positional's help followed by its choices.
  static func text(for positional: PositionalSpec) -> String {
    var notes: [String] = []
    if case .choice(let choices) = positional.kind {
      notes.append("values: " + choices.joined(separator: ", "))
    }
    return annotated(positional.help, notes)
  }

  private static func annotated(_ text: String, _ notes: [String]) -> String {
    notes.isEmpty ? text : "\(text) (\(notes.joined(separator: "; ")))"
  }

  private func section(_ title: String, rows: [(String, String)]) -> [String] {
    [title] + rows.flatMap { TextWrapper.row(label: $0.0, text: $0.1, width: width) }
  }

  private func wrap(_ text: String, prefix: String = "") -> [String] {
    TextWrapper.wrap(text, width: width, prefix: prefix)
  }

  private func join(_ sections: [[String]]) -> String {
    sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
  }
}
