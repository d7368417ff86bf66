/// The search box's text and the cursor in it, edited as readline edits a line.
///
/// A value: every edit returns the box it makes, so a key map can apply keys to a draft and the
/// reducer receive the result whole. The cursor counts characters (`é` and `한` are one) from the
/// start, `0...text.count`. Words, for Ctrl-W, are runs of non-spaces (`unix-word-rubout`); for
/// Alt-B and Alt-F, runs of letters and digits (`backward-word`, `forward-word`).
///
/// ```swift
/// let box = SearchBox("swift task").deletingWordBefore()  // "swift ", cursor 6
/// ```
package struct SearchBox: Sendable, Equatable {
  package private(set) var text: String
  /// How many characters follow the cursor: 0 at the end, where typing mostly is.
  package private(set) var afterCursor: Int

  /// A box holding `text`, the cursor at `cursor` (clamped), or at its end.
  package init(_ text: String = "", cursor: Int? = nil) {
    let count = text.count
    self.init(text: text, afterCursor: count - min(max(cursor ?? count, 0), count))
  }

  /// A box with `afterCursor` characters after the cursor, known to be within `text` (a
  /// state's), without counting the text.
  package init(text: String, afterCursor: Int) {
    self.text = text
    self.afterCursor = afterCursor
  }

  /// The cursor, in characters from the start.
  package var cursor: Int { text.count - afterCursor }

  private var characters: [Character] { Array(text) }

  private func with(_ characters: [Character], cursor: Int) -> SearchBox {
    SearchBox(text: String(characters), afterCursor: characters.count - cursor)
  }

  /// `typed` inserted at the cursor, which ends after it.
  package func inserting(_ typed: String) -> SearchBox {
    // At the end, as typing and a paste mostly are, without taking the text apart.
    guard afterCursor > 0 else { return SearchBox(text: text + typed, afterCursor: 0) }
    var all = characters
    let added = Array(typed)
    let cursor = all.count - afterCursor
    all.insert(contentsOf: added, at: cursor)
    return with(all, cursor: cursor + added.count)
  }

  /// Backspace: the character before the cursor removed.
  package func deletingBackward() -> SearchBox {
    guard afterCursor > 0 else {
      return text.isEmpty ? self : SearchBox(text: String(text.dropLast()), afterCursor: 0)
    }
    var all = characters
    let cursor = all.count - afterCursor
    guard cursor > 0 else { return self }
    all.remove(at: cursor - 1)
    return with(all, cursor: cursor - 1)
  }

  /// Delete: the character under the cursor removed.
  package func deletingForward() -> SearchBox {
    guard afterCursor > 0 else { return self }
    var all = characters
    all.remove(at: all.count - afterCursor)
    return SearchBox(text: String(all), afterCursor: afterCursor - 1)
  }

  /// Ctrl-U: everything before the cursor removed.
  package func deletingToStart() -> SearchBox {
    SearchBox(text: String(text.suffix(afterCursor)), afterCursor: afterCursor)
  }

  /// Ctrl-K: everything from the cursor on removed.
  package func deletingToEnd() -> SearchBox {
    SearchBox(text: String(text.dropLast(afterCursor)), afterCursor: 0)
  }

  /// Ctrl-W: the spaces before the cursor and the word before them removed.
  package func deletingWordBefore() -> SearchBox {
    let all = characters
    let cursor = all.count - afterCursor
    var start = cursor
    while start > 0, all[start - 1].isWhitespace { start -= 1 }
    while start > 0, !all[start - 1].isWhitespace { start -= 1 }
    return with(Array(all[..<start] + all[cursor...]), cursor: start)
  }

  /// The cursor moved by `offset` characters, within the text.
  package func moving(by offset: Int) -> SearchBox {
    SearchBox(text: text, afterCursor: min(max(afterCursor - offset, 0), text.count))
  }

  /// Home and Ctrl-A: the cursor at the start.
  package var atStart: SearchBox { SearchBox(text: text, afterCursor: text.count) }
  /// End and Ctrl-E: the cursor at the end.
  package var atEnd: SearchBox { SearchBox(text: text, afterCursor: 0) }

  /// Alt-B: the cursor at the start of the word before it.
  package func wordBackward() -> SearchBox {
    let all = characters
    var index = all.count - afterCursor
    while index > 0, !Self.isWord(all[index - 1]) { index -= 1 }
    while index > 0, Self.isWord(all[index - 1]) { index -= 1 }
    return SearchBox(text: text, afterCursor: all.count - index)
  }

  /// Alt-F: the cursor past the end of the word after it.
  package func wordForward() -> SearchBox {
    let all = characters
    var index = all.count - afterCursor
    while index < all.count, !Self.isWord(all[index]) { index += 1 }
    while index < all.count, Self.isWord(all[index]) { index += 1 }
    return SearchBox(text: text, afterCursor: all.count - index)
  }

  private static func isWord(_ character: Character) -> Bool {
    character.isLetter || character.isNumber
  }
}
