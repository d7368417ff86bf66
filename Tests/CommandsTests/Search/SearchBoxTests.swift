import Foundation
import Testing

@testable import LoadctlCommands

/// The search box edited as readline edits a line: the text and the cursor in it.
@Suite struct SearchBoxTests {
  /// `text` with `|` at the cursor.
  private static func box(_ marked: String) -> SearchBox {
    let cursor = marked.firstIndex(of: "|").map { marked.distance(from: marked.startIndex, to: $0) }
    return SearchBox(marked.replacingOccurrences(of: "|", with: ""), cursor: cursor)
  }

  private static func marked(_ box: SearchBox) -> String {
    "\(box.text.prefix(box.cursor))|\(box.text.dropFirst(box.cursor))"
  }

  @Test(arguments: [
    ("swift ta|sk", "inserting x", "swift tax|sk"), ("|", "inserting 한", "한|"),
    ("swift ta|sk", "deletingBackward", "swift t|sk"), ("|swift", "deletingBackward", "|swift"),
    ("swé|", "deletingBackward", "sw|"), ("swift ta|sk", "deletingForward", "swift ta|k"),
    ("swift|", "deletingForward", "swift|"), ("swift ta|sk", "deletingToStart", "|sk"),
    ("swift ta|sk", "deletingToEnd", "swift ta|"),
    ("swift ta|sk", "deletingWordBefore", "swift |sk"),
    ("swift   |task", "deletingWordBefore", "|task"), ("|swift", "deletingWordBefore", "|swift"),
    ("swift ta|sk", "wordBackward", "swift |task"), ("swift |task", "wordBackward", "|swift task"),
    ("sw|ift task", "wordForward", "swift| task"), ("swift| task", "wordForward", "swift task|"),
    ("swift ta|sk", "atStart", "|swift task"), ("swift ta|sk", "atEnd", "swift task|"),
    ("s|w", "left", "|sw"), ("|sw", "left", "|sw"), ("s|w", "right", "sw|"),
    ("sw|", "right", "sw|"),
  ])
  func anEditMakesTheBoxItSays(before: String, edit: String, after: String) {
    let box = Self.box(before)
    let edited: SearchBox =
      switch edit {
      case "inserting x": box.inserting("x")
      case "inserting 한": box.inserting("한")
      case "deletingBackward": box.deletingBackward()
      case "deletingForward": box.deletingForward()
      case "deletingToStart": box.deletingToStart()
      case "deletingToEnd": box.deletingToEnd()
      case "deletingWordBefore": box.deletingWordBefore()
      case "wordBackward": box.wordBackward()
      case "wordForward": box.wordForward()
      case "atStart": box.atStart
      case "atEnd": box.atEnd
      case "left": box.moving(by: -1)
      default: box.moving(by: 1)
      }
    #expect(Self.marked(edited) == after)
  }

  /// The cursor is clamped to the text, and counts characters, not bytes or scalars.
  @Test func theCursorCountsCharactersWithinTheText() {
    #expect(SearchBox("swift", cursor: 99).cursor == 5)
    #expect(SearchBox("swift", cursor: -3).cursor == 0)
    #expect(SearchBox("é한😀").moving(by: -1).cursor == 2)
    #expect(SearchBox("ab").moving(by: -10).cursor == 0)
  }
}
