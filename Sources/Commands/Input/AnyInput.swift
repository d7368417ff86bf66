import LoadctlCore

/// Any sequence of a flow's actions, so one store input can come from lines, keys or arguments,
/// after the flow's initial actions.
///
/// The store is generic over its input sequence; commands choose the source at run time
/// (`--input` lines, interactive keys, positional arguments), so they erase the type here. The
/// erased iterator calls a closure made where the base's type is known, so reading an action
/// costs one indirect call, whatever the base.
package struct AnyInput<Action: Sendable>: AsyncSequence, Sendable {
  package typealias Element = Action
  package typealias Failure = Never

  private let make: @Sendable () -> Iterator

  package init<Base: AsyncSequence & Sendable>(_ base: Base)
  where Base.Element == Action, Base.Failure == Never {
    if let erased = base as? AnyInput<Action> {
      self = erased  // erased once: no second indirect call per action
      return
    }
    make = {
      let box = IteratorBox(base.makeAsyncIterator())
      return Iterator(nextAction: { await box.next() }, takeReady: nil)
    }
  }

  /// `base`, whose actions the store's loop can take when they are ready (see
  /// ``ReadyIterator``).
  package init<Base: AsyncSequence & Sendable>(_ base: Base)
  where Base.Element == Action, Base.Failure == Never, Base.AsyncIterator: ReadyIterator {
    if let erased = base as? AnyInput<Action> {
      self = erased
      return
    }
    make = {
      let box = IteratorBox(base.makeAsyncIterator())
      return Iterator(nextAction: { await box.next() }, takeReady: { box.nextReady() })
    }
  }

  /// `first`, then the actions of `base` when there is one: `profile` loads on start (the
  /// screen's `.task`) and then follows its `--input`, as one input, with no task in between.
  package init(_ first: [Action], then base: AnyInput<Action>?) {
    if first.isEmpty, let base {
      self = base
      return
    }
    make = {
      let box = PrependedBox(first, then: base?.makeAsyncIterator())
      return Iterator(nextAction: { await box.next() }, takeReady: { box.nextReady() })
    }
  }

  package func makeAsyncIterator() -> Iterator { make() }

  /// Forwards to the erased iterator.
  package struct Iterator: ReadyIterator {
    fileprivate let nextAction: nonisolated(nonsending) () async -> Action?
    /// `nil` when the base cannot say whether an action is ready.
    fileprivate let takeReady: (() -> Action?)?

    package mutating func next() async -> Action? { await nextAction() }

    package mutating func next(isolation actor: isolated (any Actor)?) async -> Action? {
      await nextAction()
    }

    package mutating func nextReady() -> Action? { takeReady?() }
  }
}

/// Holds a base iterator by reference so the erased iterator can stay a value.
private final class IteratorBox<Base: AsyncIteratorProtocol> where Base.Failure == Never {
  private var base: Base

  init(_ base: Base) { self.base = base }

  nonisolated(nonsending) func next() async -> Base.Element? {
    await base.next(isolation: #isolation)
  }
}

extension IteratorBox where Base: ReadyIterator {
  func nextReady() -> Base.Element? { base.nextReady() }
}

/// Gives the actions of `first`, then those of the base iterator.
private final class PrependedBox<Action: Sendable> {
  private var first: ArraySlice<Action>
  private var base: AnyInput<Action>.Iterator?

  init(_ first: [Action], then base: AnyInput<Action>.Iterator?) {
    self.first = first[...]
    self.base = base
  }

  nonisolated(nonsending) func next() async -> Action? {
    if let action = first.popFirst() { return action }
    return await base?.next(isolation: #isolation)
  }

  func nextReady() -> Action? {
    if let action = first.popFirst() { return action }
    return base?.nextReady()
  }
}
