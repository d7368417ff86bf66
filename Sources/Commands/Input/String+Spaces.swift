extension StringProtocol {
  /// The text without leading and trailing spaces and tabs.
  package var trimmingSpaces: String {
    spaceTrimmedRange.map { String(self[$0]) } ?? ""
  }

  /// Where the text is once leading and trailing spaces and tabs are left out; `nil` when it is
  /// nothing but those.
  fileprivate var spaceTrimmedRange: ClosedRange<Index>? {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let start = firstIndex(where: { !isSpace($0) }),
      let end = lastIndex(where: { !isSpace($0) })
    else { return nil }
    return start...end
  }
}

extension String {
  /// The text without leading and trailing spaces and tabs; the same string, not a copy, when
  /// there are none.
  package var trimmingSpaces: String {
    guard let range = spaceTrimmedRange else { return "" }
    guard range.lowerBound == startIndex, index(after: range.upperBound) == endIndex else {
      return String(self[range])
    }
    return self
  }
}

extension String {
  /// The text in lower case, for matching an input word in any letter case; the same string,
  /// not a copy, when it is ASCII without a capital.
  package var lowercasedWord: String {
    let plain = utf8.allSatisfy {
      $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
    }
    return plain ? self : lowercased()
  }
}
