/// A sequence that yields some actions first, then those of an optional base sequence.
///
/// `profile` loads on start (the screen's `.task`) and then follows its `--input`; both reach the
/// store as one input sequence, in that order, with no task in between.
package struct Prepended<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable, Base.Failure == Never {
  package typealias Element = Base.Element
  package typealias Failure = Never

  let first: [Base.Element]
  /// Makes the base's iterator as a closure, formed where `Base` is known.
  private let makeBase: @Sendable () -> (nonisolated(nonsending) () async -> Base.Element?)?

  package init(_ first: [Base.Element], then base: Base?) {
    self.first = first
    makeBase = {
      guard let base else { return nil }
      let box = BaseIterator(base.makeAsyncIterator())
      return { await box.next() }
    }
  }

  package func makeAsyncIterator() -> Iterator {
    Iterator(first: first, remaining: !first.isEmpty, base: makeBase())
  }

  /// Drains `first`, then the base.
  package struct Iterator: AsyncIteratorProtocol {
    var first: [Base.Element]
    var remaining: Bool
    var index = 0
    let base: (nonisolated(nonsending) () async -> Base.Element?)?

    init(
      first: [Base.Element], remaining: Bool,
      base: (nonisolated(nonsending) () async -> Base.Element?)?
    ) {
      (self.first, self.remaining, self.base) = (first, remaining, base)
    }

    package mutating func next() async -> Base.Element? {
      await next(isolation: #isolation)
    }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Base.Element? {
      if remaining {
        defer {
          index += 1
          remaining = index < first.count
        }
        return first[index]
      }
      return await base?()
    }
  }
}

/// Holds the base's iterator by reference, so the closure that reads it can be stored.
private final class BaseIterator<Base: AsyncIteratorProtocol> where Base.Failure == Never {
  private var base: Base

  init(_ base: Base) { self.base = base }

  nonisolated(nonsending) func next() async -> Base.Element? {
    await base.next(isolation: #isolation)
  }
}
