import LoadctlCore

/// One backend request: the query and its number, which makes a run's random delays reproducible.
///
/// The number is the query's ``SearchState/revision`` (1 for the first text typed), so the same
/// input with the same `--seed` gives every request the same simulated jitter, whatever the mode.
package struct SearchRequest: Sendable, Equatable {
  package let query: String
  package let revision: Int

  package init(query: String, revision: Int) {
    self.query = query
    self.revision = revision
  }
}

/// What a backend found: the first `--limit` matches, best first, and how many matched in all.
package struct SearchHits: Sendable, Equatable {
  package let items: [String]
  package let total: Int

  package init(items: [String], total: Int) {
    self.items = items
    self.total = total
  }

  /// `10 of 31`, `1 of 1`, or `none`.
  package var countText: String { total == 0 ? "none" : "\(items.count) of \(total)" }
}
