import LoadctlCore
import Testing

@testable import LoadctlCommands

/// `search --exec TEMPLATE`: where the query goes, which templates are refused, and how stdout
/// becomes results. The commands themselves run in `SearchExecEndToEndTests`.
@Suite struct SearchExecTemplateTests {
  @Test(arguments: [
    ("swift", "grep -ril -- 'swift' docs"),
    ("it's", #"grep -ril -- 'it'\''s' docs"#),
    ("'; rm -rf ~ #", #"grep -ril -- ''\''; rm -rf ~ #' docs"#),
    ("$(touch x) `id` \\", "grep -ril -- '$(touch x) `id` \\' docs"),
    ("", "grep -ril -- '' docs"),
  ])
  func theQueryBecomesOneSingleQuotedWord(query: String, command: String) throws {
    let template = try SearchExecTemplate("grep -ril -- {query} docs")
    #expect(template.command(for: query) == command)
  }

  @Test func everyPlaceholderIsReplaced() throws {
    let template = try SearchExecTemplate("case {query} in a) echo {query};; esac")
    #expect(template.command(for: "b c") == "case 'b c' in a) echo 'b c';; esac")
  }

  @Test(arguments: [
    "grep -- {query} f", "a {query}{query} b", #"echo "x" {query} 'y'"#, #"echo \\ {query}"#,
    "echo a#{query} # it's a comment",
  ])
  func barePlaceholdersAreAccepted(template: String) throws {
    #expect(SearchExecTemplate.placeholdersAreBare(template))
    _ = try SearchExecTemplate(template)
  }

  @Test(arguments: [
    "grep '{query}' f", #"grep "{query}" f"#, #"grep "x $({query})" f"#, #"grep \{query} f"#,
    "grep {query} '{query}' f", #"grep 'it''s {query}' f"#,
    // A newline in the query would end the comment and run the rest.
    "grep {query} f # then {query}",
  ])
  func aQuotedEscapedOrCommentedPlaceholderIsAUsageError(template: String) {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate(template) }
    #expect(
      error?.message
        == "{query} in '--exec' must stand outside quotes, comments and backslashes (loadctl "
        + "quotes the query itself): '\(template)'")
  }

  @Test func aTemplateWithoutPlaceholderIsAUsageError() {
    let error = #expect(throws: UsageError.self) { try SearchExecTemplate("ls docs") }
    #expect(
      error?.message
        == "'--exec' needs {query} where the query goes, e.g. 'grep -ril -- {query} docs'")
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
