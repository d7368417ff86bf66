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
    (#"x=$(printf '%s' {query}); printf '%s\n' "$x""#, true),
    (#"x=`printf '%s' {query}`; printf '%s\n' "$x""#, true),
    (#"printf '%s\n' ${UNSET:-{query}}"#, true),
    (#"sh -c 'printf "%s\n" "$LOADCTL_QUERY"'"#, true),
    (#"printf '%s\n' {query} # and {query} in a comment"#, true),
  ]

  static let hostileQueries = [
    "'; touch MARKER #", "$(touch MARKER)", "`touch MARKER`", "\"; touch MARKER; \"",
    "x[$(touch MARKER)]", "a\ntouch MARKER", "\\\"$(touch MARKER)", "*",
  ]

  @Test(arguments: contexts, hostileQueries)
  func noQueryRunsInAnyContext(context: (String, Bool), pattern: String) async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("search-exec-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let marker = directory + "/marker"
    let query = pattern.replacingOccurrences(of: "MARKER", with: marker)
    let template = try SearchExecTemplate(context.0)
    var command = Subprocess.shell(template.command)
    command.environment = template.environment(
      for: query, base: ProcessInfo.processInfo.environment)
    let output = try await command.output()
    #expect(output.termination == .exited(0), "\(output.stderrTail)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the query ran")
    let printed = String(decoding: output.stdout, as: UTF8.self)
    #expect(printed.contains(query), "\(printed)")
    if context.1 { #expect(printed == query + "\n") }
  }

  @Test(arguments: [
    "grep -- {query} f", "a {query}{query} b", #"echo "x" {query} 'y'"#, #"echo \\ {query}"#,
    "echo a#{query} # it's a comment", "grep {query} f # then {query}",
    "cat <<EOF\n{query}\nEOF", "echo $(( 1 + (2) )) {query}", #"sh -c 'grep "$LOADCTL_QUERY" f'"#,
  ])
  func barePlaceholdersAreAccepted(template: String) throws {
    #expect(SearchExecTemplate.placeholdersAreBare(template))
    _ = try SearchExecTemplate(template)
  }

  @Test(arguments: [
    "grep '{query}' f", #"grep "{query}" f"#, #"grep "x $({query})" f"#, #"grep \{query} f"#,
    "grep {query} '{query}' f", #"grep 'it''s {query}' f"#,
    // Arithmetic: bash evaluates the operand's text again, `x[$(cmd)]` included.
    "echo $(( {query} ))", "echo $(( (1 + {query}) ))", "(( {query} > 1 )) && echo y",
  ])
  func aQuotedEscapedOrArithmeticPlaceholderIsAUsageError(template: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "{query} in '--exec' must stand outside quotes, backslashes and arithmetic (it "
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
