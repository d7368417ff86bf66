import LoadctlCore
import LoadctlTestKit
import Synchronization
import Testing

/// What an effect is about, given when it is made and carried to observers with its events.
@Suite struct EffectDetailTests {
  /// `queue load 2`, `start load 1`, `end load 1`; `-` for an effect with no detail.
  private func describe(_ events: [StoreEvent<Probe, ProbeAction>]) -> [String] {
    events.compactMap { event in
      let (phase, info): (String, EffectInfo)
      switch event {
      case .effectQueued(let queued): (phase, info) = ("queue", queued)
      case .effectStarted(let started): (phase, info) = ("start", started)
      case .effectDropped(let dropped): (phase, info) = ("drop", dropped)
      case .effectFinished(let finished, _): (phase, info) = ("end", finished)
      case .transition, .ignored: return nil
      }
      let detail = info.detail.map { $0.value(as: Int.self).map(String.init) ?? "?" } ?? "-"
      return "\(phase) \(info.label) \(detail)"
    }
  }

  /// Each effect's detail comes with each of its events, queued, started and finished, also
  /// when a `latest` effect waits for the one it cancelled.
  @Test func aRunEffectsDetailComesWithEachOfItsEvents() throws {
    let made = Mutex(0)
    let store = makeProbeStore { clock in
      let page = made.withLock { count in
        count += 1
        return count
      }
      return .run(name: "load", detail: EffectDetail(page)) { _ in
        try await clock.sleep(for: .seconds(1))
      }
      .cancellable(id: "x", policy: .latest)
    }
    store.send(.go)
    store.send(.go)
    #expect(store.inFlight.map { $0.detail?.value(as: Int.self) } == [2])
    store.clock.advance(by: .seconds(1))
    store.finish()
    #expect(
      describe(store.effectEvents) == [
        "start load 1", "queue load 2", "end load 1", "start load 2", "end load 2",
      ])
  }

  /// A `run` effect made without a detail has none; each part of a merge keeps its own.
  @Test func eachRunOfAMergeKeepsItsOwnDetail() throws {
    let store = makeProbeStore { clock in
      .merge(
        .run(name: "a", detail: EffectDetail(7)) { _ in try await clock.sleep(for: .seconds(1)) },
        .run(name: "b") { _ in try await clock.sleep(for: .seconds(1)) })
    }
    store.send(.go)
    store.clock.advance(by: .seconds(1))
    store.finish()
    #expect(describe(store.effectEvents) == ["start a 7", "start b -", "end a 7", "end b -"])
  }

  @Test func detailsAreEqualWhenTheyHoldEqualValuesOfOneType() {
    #expect(EffectDetail(1) == EffectDetail(1))
    #expect(EffectDetail(1) != EffectDetail(2))
    #expect(EffectDetail(1) != EffectDetail("1"))
    #expect(EffectDetail("1") != EffectDetail(1))
    #expect(EffectDetail(1).value(as: String.self) == nil)
    #expect(EffectDetail("page").value(as: String.self) == "page")
  }

  /// A detail is equal to itself when it holds a subclass instance typed as its base class (the
  /// opened type is the base, the dynamic type the subclass: it compared them and said no).
  @Test func aDetailHoldingASubclassIsEqualToItself() {
    let named: Named = Renamed(name: "a")
    let detail = EffectDetail(named)
    #expect(detail == detail)
    #expect(detail != EffectDetail(Named(name: "a")))
    #expect(EffectDetail(Named(name: "a")) == EffectDetail(Named(name: "a")))
  }
}

/// A class whose every stored property is a `let` of a `Sendable` type, and whose subclass adds
/// none: instances are immutable, so sharing them across tasks is safe (`@unchecked` only because
/// a non-final class cannot be checked).
private class Named: @unchecked Sendable, Equatable {
  let name: String
  init(name: String) { self.name = name }
  static func == (lhs: Named, rhs: Named) -> Bool { lhs.name == rhs.name }
}

private final class Renamed: Named, @unchecked Sendable {}
