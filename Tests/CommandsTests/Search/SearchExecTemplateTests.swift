import Foundation
import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `search --exec TEMPLATE`: where the query goes, which templates are refused, and how stdout
/// becomes results. `SearchExecEndToEndTests` runs them through the built binary.
@Suite struct SearchExecTemplateTests {
  @Test func eachPlaceholderIsAQuotedReferenceToTheEnvironment() throws {
    let template = try SearchExecTemplate("case {query} in a) echo {query}-x;; esac")
    #expect(
      template.command == #"case "$LOADCTL_QUERY" in a) echo "$LOADCTL_QUERY"-x;; esac"#)
    #expect(template.template == "case {query} in a) echo {query}-x;; esac")
  }

  @Test func theQueryIsAddedToTheEnvironmentItInherits() throws {
    let template = try SearchExecTemplate("grep -- {query} f")
    let base = ["PATH": "/bin", "LOADCTL_QUERY": "inherited"]
    #expect(
      template.environment(for: "'; rm -rf ~ #", base: base)
        == ["PATH": "/bin", "LOADCTL_QUERY": "'; rm -rf ~ #"])
  }

  /// Templates that read the query in every way a shell can, and whether the query is printed
  /// as it is (a here-document keeps the reference's quotes).
  static let contexts: [(String, Bool)] = [
    (#"printf '%s\n' {query}"#, true),
    (#"printf '%s\n' x{query}y"#, false),
    ("cat <<EOF\n{query}\nEOF", false),
    (#"case {query} in *) printf '%s\n' {query};; esac"#, true),
    ("cat <<EOF\n$(printf '%s' {query})\nEOF", true),
    ("cat <<EOF\n`printf '%s' {query}`\nEOF", true),
    (#"sh -c 'printf "%s\n" "$LOADCTL_QUERY"'"#, true),
    (#"printf '%s\n' {query} # and {query} in a comment"#, true),
    // `#` inside a word, after `$(…)`, is a character; a comment ends at the byte \n.
    (#"printf '%s\n' $(true)#{query}"#, false),
    ("# a comment\r\nprintf '%s\\n' {query}", true),
    // Where bash (and dash) read the value as a string, never as arithmetic.
    (#"[ {query} -eq 1 ] 2>/dev/null || printf '%s\n' {query}"#, true),
    (#"test {query} -lt 1 2>/dev/null || printf '%s\n' {query}"#, true),
    (#"printf '%d' {query} 2>/dev/null; printf '\n%s\n' {query}"#, false),
    (#"x=1 printf '%s\n' {query} | cat 2>&1"#, true),
    (#"[[ -n x ]] 2>/dev/null; a[1]=x 2>/dev/null; printf '%s\n' {query} >&1"#, true),
  ]

  static let hostileQueries = [
    "'; touch MARKER #", "$(touch MARKER)", "`touch MARKER`", "\"; touch MARKER; \"",
    "x[$(touch MARKER)]", "a\ntouch MARKER", "\\\"$(touch MARKER)", "*",
  ]

  /// Runs each accepted context with `/bin/sh` and, where it is installed, with bash, which
  /// evaluates values as arithmetic in more places than dash.
  @Test(arguments: contexts, hostileQueries)
  func noQueryRunsInAnyContext(context: (String, Bool), pattern: String) async throws {
    try await Self.run(context.0, pattern: pattern) { shell, query, output in
      #expect(output.termination == .exited(0), "\(shell): \(output.stderrTail)")
      let printed = String(decoding: output.stdout, as: UTF8.self)
      #expect(printed.contains(query), "\(shell): \(printed)")
      if context.1 { #expect(printed == query + "\n", "\(shell)") }
    }
  }

  /// The templates README.md and docs/search.md show.
  static let documented = [
    "grep -ril -- {query} docs", "grep -ril -- {query} docs || test $? = 1",
    "case {query} in slow) exec sleep 100;; *) grep -ril -- {query} docs;; esac",
    #"sh -c 'grep -ril -- "$LOADCTL_QUERY" docs'"#,
  ]

  /// No hostile query runs in any documented template, under `/bin/sh` and bash.
  @Test(arguments: documented, hostileQueries)
  func noQueryRunsInADocumentedTemplate(template: String, pattern: String) async throws {
    try await Self.run(template, pattern: pattern) { _, _, _ in }
  }

  /// Runs `template` for `pattern` (its `MARKER` a path in a scratch directory) under
  /// `/bin/sh` and bash where installed, expecting the marker never made, then `check`s the
  /// output.
  private static func run(
    _ template: String, pattern: String,
    check: (_ shell: String, _ query: String, Subprocess.Output) -> Void
  ) async throws {
    let accepted = try SearchExecTemplate(template)
    for shell in ["/bin/sh", "/bin/bash"] where FileManager.default.isExecutableFile(atPath: shell)
    {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("search-exec-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let marker = directory + "/marker"
      let query = pattern.replacingOccurrences(of: "MARKER", with: marker)
      var command = Subprocess.shell(#"exec "$SHELL_UNDER_TEST" -c "$COMMAND_UNDER_TEST""#)
      var base = ProcessInfo.processInfo.environment
      base["SHELL_UNDER_TEST"] = shell
      base["COMMAND_UNDER_TEST"] = accepted.command
      command.environment = accepted.environment(for: query, base: base)
      let output = try await command.output()
      #expect(!FileManager.default.fileExists(atPath: marker), "the query ran in \(shell)")
      check(shell, query, output)
    }
  }

  @Test(arguments: [
    "grep -- {query} f", "a {query}{query} b", #"echo "x" {query} 'y'"#, #"echo \\ {query}"#,
    "echo a#{query} # it's a comment", "grep {query} f # then {query}",
    "cat <<EOF\n{query}\nEOF", "echo $(( 1 + (2) )) {query}", #"sh -c 'grep "$LOADCTL_QUERY" f'"#,
    "echo {query}#x", "(cd /tmp) # {query}", "echo $(true)#{query}", "# c\r\necho {query}",
    "echo ${x#*/} ${#x} $# $((2#10)) {query}", "cat <<EOF\n$(echo {query})\nEOF",
    "echo \"\u{301}\" {query}", "echo {query}\u{301}", "[ {query} -eq 1 ]",
    "printf '%d\\n' {query}", "cmd {query} | other", "grep -- {query} f > out 2>&1",
    "x=1 grep {query} f", "grep --include={query}.md -r x .", "echo `printf '%s' {query}`",
    // What the template's own code does with the value is the template's: these are taken.
    "echo $(( {query} ))", "let x={query}", "[[ {query} -eq 1 ]]", "eval {query}",
  ])
  func placeholdersOutsideQuotesAreAccepted(template: String) throws {
    let accepted = try SearchExecTemplate(template)
    #expect(!accepted.command.contains(SearchExecTemplate.placeholder))
  }

  @Test func aPlaceholderIsReplacedWhateverFollowsIt() throws {
    #expect(
      try SearchExecTemplate("echo {query}\u{301} {query}\r\n").command
        == "echo \"$LOADCTL_QUERY\"\u{301} \"$LOADCTL_QUERY\"\r\n")
  }

  @Test(arguments: [
    "grep '{query}' f", #"grep "{query}" f"#, #"grep "x $({query})" f"#, #"grep \{query} f"#,
    "grep {query} '{query}' f", #"grep 'it''s {query}' f"#, ##"echo "a"#"{query}""##,
    "# c\r\necho \"{query}\"", "echo '\u{301}{query}'",
  ])
  func aQuotedOrEscapedPlaceholderIsAUsageError(template: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "{query} in '--exec' must stand outside quotes and backslashes (it "
        + #"becomes "$LOADCTL_QUERY"; in a string of your own, write $LOADCTL_QUERY): '"#
        + template + "'")
  }

  @Test func aTemplateWithoutTheQueryIsAUsageError() {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate("ls docs") }
    #expect(
      error?.message
        == "'--exec' needs {query} where the query goes, e.g. 'grep -ril -- {query} docs' (or "
        + "$LOADCTL_QUERY in a string of your own)")
  }

  @Test func eachNonBlankLineIsAResultInOrder() {
    let stdout = Array("b.md\r\n\na.md\n  \nc.md".utf8)
    #expect(
      SearchExecTemplate.results(stdout, limit: 2)
        == SearchHits(items: ["b.md", "a.md"], total: 3))
    #expect(SearchExecTemplate.results([], limit: 2) == SearchHits(items: [], total: 0))
    #expect(
      SearchExecTemplate.results([0x66, 0xFF, 0x0A], limit: 5)
        == SearchHits(items: ["f\u{FFFD}"], total: 1))
  }
}
