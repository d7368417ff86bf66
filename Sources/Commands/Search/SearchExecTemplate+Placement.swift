extension SearchExecTemplate {
  /// Where a template's `{query}` placeholders stand, as `/bin/sh` reads the command.
  enum Placement: Equatable {
    /// Each stands outside quotes, backslashes and arithmetic, or is inert (in a comment or a
    /// here-document whose delimiter is quoted), or the template has none.
    case bare
    /// One stands inside quotes, after a backslash, or inside arithmetic (or anywhere after `((`).
    case quoted
    /// One stands where bash may evaluate its value: as an arithmetic expression, which runs the
    /// `$(…)` of a subscript such as `a[$(cmd)]`, or as a word list it expands again (`compgen`)
    /// (the construct, e.g. "a ${…}").
    case arithmetic(String)
    /// The template uses syntax on which the lexer cannot be sure that it reads the command as
    /// every `/bin/sh` does (the reason, e.g. "a `case` inside $(…)"), and has a placeholder.
    case unsure(String)
  }

  /// Where `template`'s placeholders stand. See ``PlaceholderLexer``.
  static func placement(of template: String) -> Placement {
    let bytes = Array(template.utf8)
    var lexer = PlaceholderLexer(bytes, origin: Array(bytes.indices))
    lexer.commands(inSubstitution: false, quoted: false)
    let total = occurrences(of: PlaceholderLexer.marker, in: bytes)
    if lexer.notBare > 0 { return .quoted }
    if let reason = lexer.evaluatedReason { return .arithmetic(reason) }
    if total > 0, let reason = lexer.unsure { return .unsure(reason) }
    return lexer.bare == total ? .bare : .quoted
  }

  /// How many times `marker` occurs in `bytes`, left to right without overlaps, as
  /// ``command`` replaces it.
  static func occurrences(of marker: [UInt8], in bytes: [UInt8]) -> Int {
    var count = 0
    var index = 0
    while index + marker.count <= bytes.count {
      if bytes[index..<index + marker.count].elementsEqual(marker) {
        count += 1
        index += marker.count
      } else {
        index += 1
      }
    }
    return count
  }

  /// A lexer of shell commands, for one question: does each `{query}` stand where its reference,
  /// `"$LOADCTL_QUERY"`, stays a quoted word (or part of one)?
  ///
  /// It reads the command as dash (Debian's `/bin/sh`) does, byte by byte: every byte of shell
  /// syntax is ASCII, so `"\r\n"` is a carriage return (an ordinary character) and then the
  /// newline, and a quote followed by a combining mark is still a quote. It follows single and
  /// double quotes, backslashes and line continuations, comments (a `#` only where a word may
  /// start: not after the `)` of a `$(…)`, the `}` of a `${…}` or a quote), `$(…)`, `${…}` (in
  /// which blanks, `#` and parentheses are ordinary), backquotes (whose text, once its
  /// backslashes are removed, is read again as commands), arithmetic and here-documents. Where
  /// dash and bash disagree, or where it does not follow the grammar (a `case` inside `$(…)`,
  /// whose patterns end with a `)` of their own), it records why it is unsure instead. It also
  /// follows, erring on the side of refusing, where bash may evaluate the value of a reference
  /// as arithmetic (after `$[`, in `${…}`, `[[ … ]]`, an assignment, a subscript, the arguments
  /// of `let`, `declare`, `read`…): bash reads `a[$(cmd)]` there as a subscript, and runs `cmd`.
  struct PlaceholderLexer {
    /// The bytes of ``SearchExecTemplate/placeholder``.
    static let marker = Array(SearchExecTemplate.placeholder.utf8)

    /// Where each (un)quoted `{query}` stands in the grammar: plain commands (and `${…}` in
    /// them), double quotes, a here-document's lines, or arithmetic.
    private enum Context { case command, doubleQuotes, hereDocument, arithmetic }

    /// A here-document whose lines start after the next newline of its command.
    private struct HereDocument {
      var delimiter: [UInt8]
      var stripsTabs: Bool
      var isQuoted: Bool
    }

    /// The text read: a template's bytes, or a backquoted command's once its backslashes are
    /// removed.
    private let bytes: [UInt8]
    /// Each byte's offset in the template: a `{query}` counts only where its bytes are adjacent
    /// there, as ``command`` replaces it (a removed line continuation may join `{que` and `ry}`).
    private let origin: [Int]
    private var index = 0
    /// Placeholders whose reference stays a quoted word, or is inert.
    private(set) var bare = 0
    /// Placeholders inside quotes or arithmetic, or after `((`.
    private(set) var notBare = 0
    /// Why the first placeholder that bash may evaluate as arithmetic was refused, if any.
    private(set) var evaluatedReason: String?
    /// Why a placeholder read now may be evaluated as arithmetic: set by the construct being
    /// read (a `${…}`, an assignment, a `[[ … ]]`…), and inherited by what nests in it.
    private var refusal: String?
    /// Whether a `$[` came before: bash reads arithmetic up to its `]`, dash a `$` and a `[`,
    /// so every placeholder after it is refused.
    private var afterBracketArithmetic = false
    /// Why the lexer cannot be sure that it reads the text as every shell does: the first reason.
    private(set) var unsure: String?
    /// Whether a `((` came before: bash reads an arithmetic command there, dash two subshells,
    /// so every placeholder after it is refused.
    private var afterArithmeticCommand = false
    /// How deep quotes and substitutions nest where the lexer reads: past
    /// ``maximumDepth`` it stops, unsure, so that no template can exhaust the stack.
    private var depth = 0
    /// The deepest nesting read.
    private static let maximumDepth = 100

    init(_ bytes: [UInt8], origin: [Int]) {
      self.bytes = bytes
      self.origin = origin
    }

    /// Reads commands to the end of the text or, in a `$(…)`, past the `)` that closes it.
    mutating func commands(inSubstitution: Bool, quoted: Bool) {
      guard enter() else { return }
      let inherited = refusal
      defer {
        depth -= 1
        refusal = inherited
      }
      var wordStart = true
      /// The current word while it is plain text: `case` is a reserved word only then.
      var word: [UInt8]? = []
      var subshells = 0
      var hereDocuments: [HereDocument] = []
      var statement = Statement(wordStart: index)
      while true {
        skipContinuations()
        guard index < bytes.count else {
          if inSubstitution { doubt("an unterminated $(…)") }
          return
        }
        if atPlaceholder() {
          refusal = inherited ?? statement.reason(subshells: subshells)
          count(quoted: quoted)
          refusal = inherited
          wordStart = false
          word = nil
          continue
        }
        let byte = bytes[index]
        switch byte {
        case Byte.space, Byte.tab, Byte.newline, Byte.semicolon, Byte.ampersand, Byte.pipe,
          Byte.less, Byte.greater, Byte.openParenthesis, Byte.closeParenthesis:
          if inSubstitution, word == Byte.caseWord { doubt("a case inside $(…)") }
          let redirects =
            byte == Byte.ampersand && index + 1 < bytes.count && bytes[index + 1] == Byte.greater
          statement.endWord(
            bytes[statement.wordStart..<index].filter { !Byte.removedFromNames.contains($0) },
            endedBy: redirects ? Byte.greater : byte, subshells: subshells)
          word = []
          wordStart = true
          index += 1
          switch byte {
          case Byte.newline:
            hereDocumentLines(hereDocuments, quoted: quoted)
            hereDocuments = []
          case Byte.less:
            skipContinuations()
            if index < bytes.count, bytes[index] == Byte.less {
              index += 1
              if let document = hereDocumentDelimiter() { hereDocuments.append(document) }
              statement.redirectionTarget = false
            } else if index < bytes.count, [Byte.ampersand, Byte.greater].contains(bytes[index]) {
              index += 1
            }
          case Byte.greater:
            skipContinuations()
            if index < bytes.count,
              [Byte.ampersand, Byte.pipe, Byte.greater].contains(bytes[index])
            {
              index += 1
            }
          case Byte.openParenthesis:
            subshells += 1
            if statement.opensArrayAssignment { statement.arrayAssignment = subshells }
            skipContinuations()
            if index < bytes.count, bytes[index] == Byte.openParenthesis {
              afterArithmeticCommand = true
            }
          case Byte.closeParenthesis:
            if let level = statement.arrayAssignment, subshells <= level {
              statement.arrayAssignment = nil
            }
            if subshells > 0 {
              subshells -= 1
            } else if inSubstitution {
              if !hereDocuments.isEmpty { doubt("a here-document that $(…) does not finish") }
              return
            }
          default: break
          }
          statement.wordStart = index
        case Byte.hash where wordStart:
          while index < bytes.count, bytes[index] != Byte.newline {
            if atPlaceholder() { count(quoted: quoted, inert: true) } else { index += 1 }
          }
          statement.wordStart = index
        default:
          wordStart = false
          switch byte {
          case Byte.singleQuote, Byte.doubleQuote, Byte.backslash, Byte.dollar, Byte.backquote:
            word = nil
            refusal = inherited ?? statement.reason(subshells: subshells)
            wordPart(.command, quoted: quoted)
            refusal = inherited
          default:
            word?.append(byte)
            statement.read(byte, word: word)
            index += 1
          }
        }
      }
    }

    /// What a frame of ``commands`` knows of the simple command it reads: where bash may
    /// evaluate a placeholder's value as arithmetic.
    private struct Statement {
      /// Where the current word starts.
      var wordStart: Int
      /// Whether the current word is an assignment, or a subscript: `NAME=`, `NAME+=`, `NAME[`.
      private var isAssignment = false
      /// Whether the word that ended last was an assignment whose value is empty, `NAME=`.
      private(set) var opensArrayAssignment = false
      /// How many `NAME[` subscripts (and `[` in them) no `]` has closed, across words: bash
      /// reads `a[ (x) ]=1` as one word.
      private var subscripts = 0
      /// The depth of the parentheses of an array assignment `NAME=(…)`, while inside them.
      var arrayAssignment: Int?
      /// Whether a `[[` came before and its `]]` not yet.
      private var isConditional = false
      /// Whether the command's name came before.
      private var hasName = false
      /// Whether the next word is a redirection's target.
      var redirectionTarget = false
      /// The command, `printf` or `test`, whose `-v` makes its arguments variable names.
      private var readsNamesAfterV: String?
      /// The builtin whose arguments are assignments or variable names, e.g. "let".
      private var builtin: String?

      /// Builtins that assign their arguments, read them as variable names or expressions, or
      /// expand them again (`compgen -W`'s word list, `$(…)` included).
      private static let builtins: Set<String> = [
        "let", "declare", "typeset", "local", "export", "readonly", "unset", "read", "mapfile",
        "readarray", "getopts", "wait", "compgen", "complete",
      ]
      /// Commands that read a variable's name after `-v`.
      private static let namesAfterV: Set<String> = ["printf", "test", "["]
      /// Words before a command's name.
      private static let prefixes: Set<String> = [
        "!", "{", "then", "do", "else", "elif", "if", "while", "until", "time", "command",
        "builtin", "exec", "coproc", "-p", "--",
      ]

      init(wordStart: Int) { self.wordStart = wordStart }

      /// Why a placeholder read now may be evaluated as arithmetic, if it may.
      func reason(subshells: Int) -> String? {
        if subscripts > 0 { return "in a subscript NAME[…]" }
        if let level = arrayAssignment, subshells >= level {
          return "in an array assignment NAME=(…)"
        }
        if isConditional { return "in a [[ … ]]" }
        if let builtin { return "in the arguments of \(builtin)" }
        if isAssignment { return "in an assignment NAME=…" }
        return nil
      }

      /// Reads a byte of a plain word: `word` is the word up to it, itself included.
      mutating func read(_ byte: UInt8, word: [UInt8]?) {
        switch byte {
        case Byte.openBracket:
          if let word, Self.isName(word.dropLast()) {
            isAssignment = true
            subscripts += 1
          } else if subscripts > 0 {
            subscripts += 1
          }
        case Byte.closeBracket where subscripts > 0:
          subscripts -= 1
        case Byte.equals:
          guard var name = word?.dropLast() else { return }
          if name.last == Byte.plus { name = name.dropLast() }
          if Self.isName(name) { isAssignment = true }
        default: break
        }
      }

      /// Ends a word, `text` without its quotes and backslashes, at `byte`.
      mutating func endWord(_ text: [UInt8], endedBy byte: UInt8, subshells: Int) {
        opensArrayAssignment = isAssignment && text.last == Byte.equals
        defer { isAssignment = false }
        let name = String(decoding: text, as: UTF8.self)
        if name == "[[" { isConditional = true }
        if name == "]]" { isConditional = false }
        if text.isEmpty {
        } else if redirectionTarget {
          redirectionTarget = false
        } else if byte == Byte.less || byte == Byte.greater, text.allSatisfy(Byte.digits.contains) {
          // A redirection's file descriptor, `2>`.
        } else if !hasName {
          if !isAssignment, !Self.prefixes.contains(name) {
            hasName = true
            if Self.builtins.contains(name) { builtin = name }
            if Self.namesAfterV.contains(name) { readsNamesAfterV = name }
          }
        } else if let command = readsNamesAfterV, name == "-v" {
          builtin = command + " -v"
        }
        switch byte {
        case Byte.less, Byte.greater:
          redirectionTarget = true
        case Byte.space, Byte.tab:
          break
        default:
          hasName = false
          builtin = nil
          readsNamesAfterV = nil
          redirectionTarget = false
        }
      }

      /// Whether `text` is a shell variable's name: a letter or `_`, then letters, digits, `_`.
      private static func isName(_ text: ArraySlice<UInt8>) -> Bool {
        guard let first = text.first, !Byte.digits.contains(first) else { return false }
        return text.allSatisfy { Byte.digits.contains($0) || Byte.nameLetters.contains($0) }
      }
    }

    /// Reads a quoted string, an escaped byte, a `$…` or a backquoted command, in `context`
    /// (which reads its own closing quote, and its quotes inside arithmetic, first).
    private mutating func wordPart(_ context: Context, quoted: Bool) {
      switch bytes[index] {
      case Byte.singleQuote where context == .command:
        index += 1
        singleQuoted()
      case Byte.doubleQuote where context != .doubleQuotes:
        index += 1
        doubleQuoted()
      case Byte.backslash:
        index = min(index + 2, bytes.count)
      case Byte.dollar:
        dollar(context, quoted: quoted)
      case Byte.backquote:
        index += 1
        backquoted(context, quoted: quoted)
      default:
        index += 1
      }
    }

    private mutating func singleQuoted() {
      while index < bytes.count {
        if atPlaceholder() {
          count(quoted: true)
        } else if bytes[index] == Byte.singleQuote {
          index += 1
          return
        } else {
          index += 1
        }
      }
      doubt("an unterminated quote")
    }

    private mutating func doubleQuoted() {
      guard enter() else { return }
      defer { depth -= 1 }
      while true {
        skipContinuations()
        guard index < bytes.count else { return doubt("an unterminated quote") }
        if atPlaceholder() {
          count(quoted: true)
        } else if bytes[index] == Byte.doubleQuote {
          index += 1
          return
        } else {
          wordPart(.doubleQuotes, quoted: true)
        }
      }
    }

    /// Reads what follows a `$`: `$(…)`, `$((…))`, `${…}`, or nothing (`$x`, `$#`, a `$`).
    private mutating func dollar(_ context: Context, quoted: Bool) {
      index += 1
      skipContinuations()
      guard index < bytes.count, !atPlaceholder() else { return }
      switch bytes[index] {
      case Byte.openParenthesis:
        index += 1
        skipContinuations()
        if index < bytes.count, bytes[index] == Byte.openParenthesis {
          index += 1
          arithmetic()
        } else {
          commands(inSubstitution: true, quoted: quoted || context == .doubleQuotes)
        }
      case Byte.openBrace:
        index += 1
        parameter(context, quoted: quoted)
      case Byte.openBracket:
        afterBracketArithmetic = true
      case Byte.singleQuote where context == .command:
        // Bash reads `$'…'` with backslash escapes (`$'\''` is a quote), dash `$` and '…'.
        let text = bytes[(index + 1)...]
        if let end = text.firstIndex(of: Byte.singleQuote),
          text[..<end].contains(Byte.backslash)
        {
          doubt("a $'…' with a backslash")
        }
      default: break
      }
    }

    /// Reads a `${…}` after its `{`: in it blanks, `#` and parentheses are ordinary, and the
    /// first `}` outside quotes ends it.
    private mutating func parameter(_ context: Context, quoted: Bool) {
      guard enter() else { return }
      defer { depth -= 1 }
      let quoted = quoted || context == .doubleQuotes || context == .arithmetic
      // Bash evaluates a substring's offset and length, and a subscript, as arithmetic.
      let saved = refusal
      refusal = "in a ${…}"
      defer { refusal = saved }
      while true {
        skipContinuations()
        guard index < bytes.count else { return doubt("an unterminated ${…}") }
        if atPlaceholder() {
          count(quoted: quoted)
          continue
        }
        switch bytes[index] {
        case Byte.closeBrace:
          index += 1
          return
        case Byte.singleQuote where context != .command:
          // Inside double quotes, a quote of `${x#'a'}` but not of `${x:-'a'}`.
          doubt("a ' inside a quoted ${…}")
          index += 1
        case Byte.doubleQuote where context == .arithmetic:
          doubt("a quote inside arithmetic")
          index += 1
        default:
          wordPart(context, quoted: quoted)
        }
      }
    }

    /// Reads a `$((…))` after its `((`: its first `))` outside parentheses ends it. Every
    /// placeholder in it is refused.
    private mutating func arithmetic() {
      guard enter() else { return }
      defer { depth -= 1 }
      var parentheses = 0
      while true {
        skipContinuations()
        guard index < bytes.count else { return doubt("an unterminated $((…))") }
        if atPlaceholder() {
          count(quoted: true)
          continue
        }
        switch bytes[index] {
        case Byte.openParenthesis:
          parentheses += 1
          index += 1
        case Byte.closeParenthesis:
          index += 1
          if parentheses > 0 {
            parentheses -= 1
            continue
          }
          skipContinuations()
          if index < bytes.count, bytes[index] == Byte.closeParenthesis {
            index += 1
            return
          }
          // dash reads on to a `))`, bash may read a `$(` that starts with a subshell.
          doubt("a $((…)) with a lone )")
        case Byte.singleQuote, Byte.doubleQuote:
          // Ordinary characters to dash (its `))` may be inside them), quotes to bash.
          doubt("a quote inside arithmetic")
          index += 1
        default:
          wordPart(.arithmetic, quoted: true)
        }
      }
    }

    /// Reads a backquoted command after its opening backquote: up to the next backquote
    /// that no backslash escapes, then its text, once the backslashes before `\`, `` ` ``,
    /// `$` (and `"` in double quotes) and line continuations are removed, as commands.
    private mutating func backquoted(_ context: Context, quoted: Bool) {
      var text: [UInt8] = []
      var origins: [Int] = []
      while true {
        guard index < bytes.count else { return doubt("an unterminated backquote") }
        let byte = bytes[index]
        if byte == Byte.backquote {
          index += 1
          break
        }
        guard byte == Byte.backslash, index + 1 < bytes.count else {
          text.append(byte)
          origins.append(origin[index])
          index += 1
          continue
        }
        let next = bytes[index + 1]
        switch next {
        case Byte.newline: break
        case Byte.backslash, Byte.backquote, Byte.dollar: break
        case Byte.doubleQuote where context == .doubleQuotes: break
        case Byte.doubleQuote where context != .command:
          // A here-document's or arithmetic's: dash removes the backslash, bash keeps it.
          doubt("a \\\" inside backquotes in a here-document or arithmetic")
        default:
          text.append(byte)
          origins.append(origin[index])
        }
        if next != Byte.newline {
          text.append(next)
          origins.append(origin[index + 1])
        }
        index += 2
      }
      var inner = PlaceholderLexer(text, origin: origins)
      inner.afterArithmeticCommand = afterArithmeticCommand
      inner.afterBracketArithmetic = afterBracketArithmetic
      inner.refusal = refusal
      inner.depth = depth
      inner.commands(inSubstitution: false, quoted: quoted || context == .arithmetic)
      bare += inner.bare
      notBare += inner.notBare
      if evaluatedReason == nil { evaluatedReason = inner.evaluatedReason }
      afterArithmeticCommand = inner.afterArithmeticCommand
      afterBracketArithmetic = inner.afterBracketArithmetic
      if let reason = inner.unsure { doubt(reason) }
    }

    /// Reads the delimiter after `<<` or `<<-`.
    private mutating func hereDocumentDelimiter() -> HereDocument? {
      skipContinuations()
      var stripsTabs = false
      if index < bytes.count, bytes[index] == Byte.minus {
        stripsTabs = true
        index += 1
      }
      while true {
        skipContinuations()
        guard index < bytes.count, bytes[index] == Byte.space || bytes[index] == Byte.tab
        else { break }
        index += 1
      }
      guard index < bytes.count, bytes[index] != Byte.hash, bytes[index] != Byte.less else {
        doubt("a here-document without a delimiter")
        return nil
      }
      var delimiter: [UInt8] = []
      var isQuoted = false
      while true {
        skipContinuations()
        guard index < bytes.count else { break }
        if atPlaceholder() {
          count(quoted: true)
          continue
        }
        let byte = bytes[index]
        if Byte.endsWord.contains(byte) { break }
        switch byte {
        case Byte.singleQuote, Byte.doubleQuote:
          isQuoted = true
          guard let end = bytes[(index + 1)...].firstIndex(of: byte) else {
            doubt("an unterminated quote")
            return nil
          }
          let text = bytes[(index + 1)..<end]
          if byte == Byte.doubleQuote, text.contains(where: Byte.expandsInDoubleQuotes.contains) {
            doubt("a here-document delimiter with \\, $ or ` in double quotes")
          }
          delimiter += text
          index = end + 1
        case Byte.backslash:
          isQuoted = true
          if index + 1 < bytes.count { delimiter.append(bytes[index + 1]) }
          index = min(index + 2, bytes.count)
        case Byte.dollar, Byte.backquote:
          doubt("a here-document delimiter with $ or `")
          delimiter.append(byte)
          index += 1
        default:
          delimiter.append(byte)
          index += 1
        }
      }
      guard !delimiter.isEmpty else {
        doubt("a here-document without a delimiter")
        return nil
      }
      return HereDocument(delimiter: delimiter, stripsTabs: stripsTabs, isQuoted: isQuoted)
    }

    /// Reads the lines of each here-document, one after another, up to its delimiter line.
    private mutating func hereDocumentLines(_ documents: [HereDocument], quoted: Bool) {
      for document in documents {
        while index < bytes.count {
          if document.stripsTabs {
            while index < bytes.count, bytes[index] == Byte.tab { index += 1 }
          }
          let end = bytes[index...].firstIndex(of: Byte.newline) ?? bytes.count
          if bytes[index..<end].elementsEqual(document.delimiter) {
            index = min(end + 1, bytes.count)
            break
          }
          if document.isQuoted {
            while index < end {
              if atPlaceholder() { count(quoted: quoted, inert: true) } else { index += 1 }
            }
            index = min(end + 1, bytes.count)
          } else {
            hereDocumentLine(quoted: quoted)
          }
        }
      }
    }

    /// Reads a line of a here-document whose delimiter is unquoted, where only `\`, `$` and
    /// `` ` `` are special.
    private mutating func hereDocumentLine(quoted: Bool) {
      while index < bytes.count {
        if atPlaceholder() {
          count(quoted: quoted)
          continue
        }
        let start = index
        switch bytes[index] {
        case Byte.newline:
          index += 1
          return
        case Byte.backslash where index + 1 < bytes.count && bytes[index + 1] == Byte.newline:
          // dash looks for the delimiter on the line that follows, bash on the joined line.
          doubt("a line continuation in a here-document")
          index += 2
        case Byte.backslash:
          index = min(index + 2, bytes.count)
        case Byte.dollar, Byte.backquote:
          wordPart(.hereDocument, quoted: quoted)
          // dash looks for the delimiter only outside them, bash inside them too.
          if bytes[start..<index].contains(Byte.newline) {
            doubt("a substitution across lines of a here-document")
          }
        default:
          index += 1
        }
      }
    }

    /// Whether a `{query}` starts at `index`, its bytes adjacent in the template.
    private func atPlaceholder() -> Bool {
      let end = index + Self.marker.count
      return end <= bytes.count && bytes[index..<end].elementsEqual(Self.marker)
        && origin[end - 1] - origin[index] == Self.marker.count - 1
    }

    /// Counts the placeholder at `index` and moves past it: `inert` where its text stays text
    /// (a comment, a here-document whose delimiter is quoted).
    private mutating func count(quoted: Bool, inert: Bool = false) {
      if quoted || afterArithmeticCommand {
        notBare += 1
      } else if !inert, let reason = refusal ?? (afterBracketArithmetic ? "after a $[…]" : nil) {
        if evaluatedReason == nil { evaluatedReason = reason }
      } else {
        bare += 1
      }
      index += Self.marker.count
    }

    /// Moves past line continuations (a backslash and a newline), which the shell removes.
    private mutating func skipContinuations() {
      while index + 1 < bytes.count, bytes[index] == Byte.backslash,
        bytes[index + 1] == Byte.newline
      {
        index += 2
      }
    }

    /// Enters a nested quote or substitution, or, past ``maximumDepth``, stops reading.
    private mutating func enter() -> Bool {
      guard depth < Self.maximumDepth else {
        doubt("quotes or substitutions nested over \(Self.maximumDepth) deep")
        index = bytes.count
        return false
      }
      depth += 1
      return true
    }

    private mutating func doubt(_ reason: String) {
      if unsure == nil { unsure = reason }
    }
  }
}

/// The bytes of shell syntax.
private enum Byte {
  static let tab = UInt8(ascii: "\t")
  static let newline = UInt8(ascii: "\n")
  static let space = UInt8(ascii: " ")
  static let doubleQuote = UInt8(ascii: "\"")
  static let hash = UInt8(ascii: "#")
  static let dollar = UInt8(ascii: "$")
  static let ampersand = UInt8(ascii: "&")
  static let singleQuote = UInt8(ascii: "'")
  static let openParenthesis = UInt8(ascii: "(")
  static let closeParenthesis = UInt8(ascii: ")")
  static let minus = UInt8(ascii: "-")
  static let semicolon = UInt8(ascii: ";")
  static let less = UInt8(ascii: "<")
  static let greater = UInt8(ascii: ">")
  static let backslash = UInt8(ascii: "\\")
  static let backquote = UInt8(ascii: "`")
  static let openBrace = UInt8(ascii: "{")
  static let pipe = UInt8(ascii: "|")
  static let closeBrace = UInt8(ascii: "}")
  static let openBracket = UInt8(ascii: "[")
  static let closeBracket = UInt8(ascii: "]")
  static let equals = UInt8(ascii: "=")
  static let plus = UInt8(ascii: "+")
  static let digits = Set(UInt8(ascii: "0")...UInt8(ascii: "9"))
  /// The bytes of a variable's name besides digits.
  static let nameLetters = Set(UInt8(ascii: "a")...UInt8(ascii: "z"))
    .union(UInt8(ascii: "A")...UInt8(ascii: "Z")).union([UInt8(ascii: "_")])
  /// The bytes that quote a command's name without changing it (`\read`, `'let'`).
  static let removedFromNames: Set<UInt8> = [singleQuote, doubleQuote, backslash, newline]
  /// The bytes that end a word outside quotes: blanks, newline and the operators' first bytes.
  static let endsWord: Set<UInt8> = [
    space, tab, newline, semicolon, ampersand, pipe, less, greater, openParenthesis,
    closeParenthesis,
  ]
  /// The bytes that expand or escape inside double quotes.
  static let expandsInDoubleQuotes: Set<UInt8> = [backslash, dollar, backquote]
  /// The reserved word whose patterns end with an unmatched `)`.
  static let caseWord = Array("case".utf8)
}
