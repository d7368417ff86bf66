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
    ("cat <<'EOF'\n\"\nEOF\nprintf '%s\\n' {query}", false),
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
    let shells = ["/bin/sh", "/bin/bash"].filter {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    for shell in shells {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("search-exec-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let marker = directory + "/marker"
      let query = pattern.replacingOccurrences(of: "MARKER", with: marker)
      let template = try SearchExecTemplate(context.0)
      var command = Subprocess.shell(#"exec "$SHELL_UNDER_TEST" -c "$COMMAND_UNDER_TEST""#)
      var base = ProcessInfo.processInfo.environment
      base["SHELL_UNDER_TEST"] = shell
      base["COMMAND_UNDER_TEST"] = template.command
      command.environment = template.environment(for: query, base: base)
      let output = try await command.output()
      #expect(output.termination == .exited(0), "\(shell): \(output.stderrTail)")
      #expect(!FileManager.default.fileExists(atPath: marker), "the query ran in \(shell)")
      let printed = String(decoding: output.stdout, as: UTF8.self)
      #expect(printed.contains(query), "\(shell): \(printed)")
      if context.1 { #expect(printed == query + "\n", "\(shell)") }
    }
  }

  @Test(arguments: [
    "grep -- {query} f", "a {query}{query} b", #"echo "x" {query} 'y'"#, #"echo \\ {query}"#,
    "echo a#{query} # it's a comment", "grep {query} f # then {query}",
    "cat <<EOF\n{query}\nEOF", "echo $(( 1 + (2) )) {query}", #"sh -c 'grep "$LOADCTL_QUERY" f'"#,
    // A `#` starts a comment only where a word may start, and a comment ends at the byte \n.
    "grep -- {query} f # comment", "echo {query}#x", "(cd /tmp) # {query}", "echo $(true)#{query}",
    "case {query} in a)#'\necho {query};; esac", "# c\r\necho {query}", "echo a\\\n#b {query}",
    // `#` in `${…}`, `$#` and arithmetic is a character.
    "echo ${x#*/} ${#x} $# $((2#10)) {query}", "echo ${x:-a #b} {query}",
    // Quotes in a here-document's lines are characters; `{query}` there is not split.
    "cat <<EOF\n\"'\nEOF\necho {query}", "cat <<'EOF'\n\"\nEOF\necho {query}",
    "cat <<-EOF\n\t\"\n\tEOF\necho {query}", "cat <<EOF\n$(echo {query})\nEOF",
    // A quote is a quote, whatever combining mark follows it.
    "echo \"\u{301}\" {query}", "echo {query}\u{301}",
    // Where bash reads the value as a string: `[`, `test` and printf's `%d` do not evaluate it.
    "[ {query} -eq 1 ]", "test {query} -lt 1", "printf '%d\\n' {query}", "grep -v -- {query} f",
    "cmd {query} | other", "grep -- {query} f > out 2>&1", "echo {query} >&2", "echo let {query}",
    "x=1 grep {query} f", "a=1; echo {query}", "[[ -f x ]] && grep {query} f", "echo a[1] {query}",
    "read x <f; echo {query}", "echo {query}=1", "grep --include={query}.md -r x .",
    "echo $((1)) {query}", "cat <<EOF\n$(printf '%s' {query})\nEOF",
  ])
  func barePlaceholdersAreAccepted(template: String) throws {
    _ = try SearchExecTemplate(template)
  }

  @Test func aPlaceholderIsReplacedWhateverFollowsIt() throws {
    #expect(
      try SearchExecTemplate("echo {query}\u{301} {query}\r\n").command
        == "echo \"$LOADCTL_QUERY\"\u{301} \"$LOADCTL_QUERY\"\r\n")
  }

  @Test(arguments: [
    "grep '{query}' f", #"grep "{query}" f"#, #"grep "x $({query})" f"#, #"grep \{query} f"#,
    "grep {query} '{query}' f", #"grep 'it''s {query}' f"#,
    // Arithmetic: bash evaluates the operand's text again, `x[$(cmd)]` included.
    "echo $(( {query} ))", "echo $(( (1 + {query}) ))", "(( {query} > 1 )) && echo y",
    "(( 1 )) && echo {query}", "for (( i = {query}; i < 1; i++ )); do :; done",
    // A `#` right after a `$(…)`, a `${…}`, a quote or a line continuation is a character.
    #"echo $(true)#"{query}""#, #"echo ${x-}#"{query}""#, ##"echo "a"#"{query}""##,
    "echo a\\\n#\"{query}\"", #"echo ${x:-a #"{query}"}"#, "echo $(echo a # )\n)#\"{query}\"",
    // dash ends arithmetic at its first `))`, in quotes or not (bash does not, and is refused).
    #"echo $(( "))" )) {query} ""#,
    // A comment ends at the byte \n, not at the character "\r\n".
    "# c\r\necho \"{query}\"", "# c\r\necho $(( {query} ))", "# c\r\necho '{query}'",
    // A quote followed by a combining mark is a quote.
    "echo \"\u{301}{query}\"", "echo '\u{301}{query}'",
    // `$(…)` in double quotes, and a backquoted command once its backslashes are removed.
    #"echo "$(echo " {query} ")""#, #"echo `echo \\\"{query}\\\"`"#,
    // Quotes in a here-document's lines are characters, up to its delimiter line.
    "cat <<EOF\n\"\nEOF\necho \"{query}\"", "cat <<'EOF'\n\"\nEOF\necho \"{query}\"",
    "cat <<-EOF\n\t\"\n\tEOF\necho \"{query}\"", "cat <<A; cat <<B\n\"\nA\nB\necho \"{query}\"",
  ])
  func aQuotedEscapedOrArithmeticPlaceholderIsAUsageError(template: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "{query} in '--exec' must stand outside quotes, backslashes and arithmetic (it "
        + #"becomes "$LOADCTL_QUERY"; in a string of your own, write $LOADCTL_QUERY): '"#
        + template + "'")
  }

  /// Where bash (as `/bin/sh` on Fedora, Arch, macOS) evaluates a value as arithmetic, which
  /// runs the `$(cmd)` of a query such as `a[$(cmd)]`, even a value it got from a variable.
  @Test(arguments: [
    ("echo $[{query}]", "after a $[…]"), ("echo $[1] {query}", "after a $[…]"),
    ("cat <<EOF\n$[{query}]\nEOF", "after a $[…]"),
    ("x=1; echo ${x:{query}}", "in a ${…}"), ("echo ${a[{query}]}", "in a ${…}"),
    ("echo ${x:-{query}}", "in a ${…}"), ("echo ${x:$(echo {query})}", "in a ${…}"),
    ("cat <<EOF\n${x:{query}}\nEOF", "in a ${…}"),
    ("let x={query}", "in the arguments of let"), ("let {query}", "in the arguments of let"),
    ("'let' {query}", "in the arguments of let"),
    ("x=1 2>&1 let {query}", "in the arguments of let"),
    ("declare -i x={query}", "in the arguments of declare"),
    ("command declare x=$(echo {query})", "in the arguments of declare"),
    ("typeset x={query}", "in the arguments of typeset"),
    ("f() { local x={query}; }", "in the arguments of local"),
    ("export x={query}", "in the arguments of export"),
    ("readonly x={query}", "in the arguments of readonly"),
    ("unset {query}", "in the arguments of unset"),
    ("read {query} </dev/null", "in the arguments of read"),
    ("printf -v {query} x", "in the arguments of printf -v"),
    ("[ -v {query} ]", "in the arguments of [ -v"),
    ("test -v {query}", "in the arguments of test -v"),
    ("declare -i x; x={query}", "in an assignment NAME=…"),
    ("x+={query}", "in an assignment NAME=…"),
    ("x=$(echo {query})", "in an assignment NAME=…"),
    ("x=`echo {query}`", "in an assignment NAME=…"),
    ("env X={query} cmd", "in an assignment NAME=…"),
    ("a[{query}]=1", "in a subscript NAME[…]"), ("a[( {query} )]=1", "in a subscript NAME[…]"),
    ("a=( [{query}]=1 )", "in an array assignment NAME=(…)"),
    ("a=({query})", "in an array assignment NAME=(…)"),
    ("[[ {query} -eq 1 ]]", "in a [[ … ]]"), ("[[ $(echo {query}) -eq 1 ]]", "in a [[ … ]]"),
    ("[[ -v {query} ]]", "in a [[ … ]]"), ("[[ 1 -eq 1 &&\n{query} -eq 1 ]]", "in a [[ … ]]"),
    ("compgen -W {query}", "in the arguments of compgen"),
    ("complete -W {query} cmd", "in the arguments of complete"),
  ])
  func aPlaceholderBashMayEvaluateAsArithmeticIsAUsageError(template: String, construct: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "{query} in '--exec' must not stand where bash may evaluate its value "
        + "(\(construct)): a query such as a[$(cmd)] would run cmd: '\(template)'")
  }

  /// Syntax that the lexer does not follow, or that dash and bash read differently.
  @Test(arguments: [
    ("echo $(case {query} in a) echo y;; esac)", "a case inside $(…)"),
    (#"echo $(case x in a) true;; esac)#"{query}""#, "a case inside $(…)"),
    (#"printf $'%s\n' {query}"#, "a $'…' with a backslash"),
    (#"echo $(( "1" )) {query}"#, "a quote inside arithmetic"),
    (#"echo "${x:-'}'}" {query}"#, "a ' inside a quoted ${…}"),
    ("cat <<EOF\nEO\\\nF\necho {query}\nEOF", "a line continuation in a here-document"),
    (
      "cat <<EOF\n$(echo a\nEOF\necho b)\nEOF\necho {query}",
      "a substitution across lines of a here-document"
    ),
    (
      "cat <<EOF\n`echo \\\"a\\\"`\nEOF\necho {query}",
      #"a \" inside backquotes in a here-document or arithmetic"#
    ),
    ("cat <<$x\n$x\necho {query}", "a here-document delimiter with $ or `"),
    ("echo $(cat <<EOF)\nx\nEOF\necho {query}", "a here-document that $(…) does not finish"),
    ("echo {query} \"", "an unterminated quote"),
  ])
  func syntaxTheLexerCannotFollowIsAUsageError(template: String, reason: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "cannot tell where {query} stands in '--exec' (\(reason)); write \"$LOADCTL_QUERY\" "
        + "there yourself: '\(template)'")
  }

  @Test func deepNestingIsRefusedWithoutExhaustingTheStack() {
    for opening in [#""$("#, "${x:-", "$((", "$("] {
      let template = String(repeating: opening, count: 100_000) + "{query}"
      let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
      #expect(
        error?.message.hasPrefix(
          "cannot tell where {query} stands in '--exec' (quotes or substitutions nested over 100 "
            + "deep)") == true)
    }
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
