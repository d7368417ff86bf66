/// Any sequence of a flow's actions, so one store input can come from lines, keys or arguments.
///
/// The store is generic over its input sequence; commands choose the source at run time
/// (`--input` lines, interactive keys, positional arguments), so they erase the type here.
package struct AnyInput<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  private let make: @Sendable () -> Iterator

  package init<Base: AsyncSequence & Sendable>(_ base: Base)
  where Base.Element == Action, Base.Failure == Never {
    make = { Iterator(IteratorBox(base.makeAsyncIterator())) }
  }

  package func makeAsyncIterator() -> Iterator { make() }

  /// Forwards to the erased iterator.
  package struct Iterator: AsyncIteratorProtocol {
    fileprivate let box: any ActionIteratorBox<Action>

    fileprivate init(_ box: any ActionIteratorBox<Action>) { self.box = box }

    package mutating func next() async -> Action? { await box.next() }
  }
}

/// Holds a base iterator by reference so the erased iterator can stay a value.
private protocol ActionIteratorBox<Action> {
  associatedtype Action
  func next() async -> Action?
}

private final class IteratorBox<Base: AsyncIteratorProtocol>: ActionIteratorBox
where Base.Failure == Never {
  private var base: Base

  init(_ base: Base) { self.base = base }

  func next() async -> Base.Element? {
    do {
      return try await base.next()
    } catch {
      return nil
    }
  }
}
