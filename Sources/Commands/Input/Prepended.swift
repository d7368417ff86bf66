/// A sequence that yields some actions first, then those of an optional base sequence.
///
/// `profile` loads on start (the screen's `.task`) and then follows its `--input`; both reach the
/// store as one input sequence, in that order, with no task in between.
package struct Prepended<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable, Base.Failure == Never {
  package typealias Element = Base.Element
  package typealias Failure = Never

  let first: [Base.Element]
  let base: Base?

  package init(_ first: [Base.Element], then base: Base?) {
    self.first = first
    self.base = base
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(first: first[...], base: base?.makeAsyncIterator())
  }

  /// Drains `first`, then the base.
  package struct Iterator: AsyncIteratorProtocol {
    var first: ArraySlice<Base.Element>
    var base: Base.AsyncIterator?

    package mutating func next() async -> Base.Element? {
      if let element = first.popFirst() { return element }
      guard var iterator = base else { return nil }
      defer { base = iterator }
      do {
        return try await iterator.next()
      } catch {
        return nil
      }
    }
  }
}
