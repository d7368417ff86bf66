/// A sequence that yields some actions first, then those of an optional base sequence.
///
/// `profile` loads on start (the screen's `.task`) and then follows its `--input`; both reach the
/// store as one input sequence, in that order, with no task in between.
package struct Prepended<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable, Base.Failure == Never {
  package typealias Element = Base.Element
  package typealias Failure = Never

  let first: [Base.Element]
  let base: AnyInput<Base.Element>?

  package init(_ first: [Base.Element], then base: Base?) {
    self.first = first
    self.base = base.map { AnyInput($0) }
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(first: first, base: base?.makeAsyncIterator())
  }

  /// Drains `first`, then the base.
  package struct Iterator: AsyncIteratorProtocol {
    let first: [Base.Element]
    var index = 0
    var base: AnyInput<Base.Element>.Iterator?

    init(first: [Base.Element], base: AnyInput<Base.Element>.Iterator?) {
      self.first = first
      self.base = base
    }

    package mutating func next() async -> Base.Element? {
      await next(isolation: #isolation)
    }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Base.Element? {
      if index < first.count {
        defer { index += 1 }
        return first[index]
      }
      return await base?.next(isolation: actor)
    }
  }
}
