/// The candidate a mistyped word was most likely meant to be, for "Did you mean …?" hints.
///
/// A unique candidate that starts with `text` wins (so `--lat` suggests `--latency`);
/// otherwise the nearest candidate within an edit distance of 2, the first one on a tie.
///
/// - Parameters:
///   - text: What the user typed, such as `--latncy`.
///   - candidates: The spellings that would have been accepted, in the table's order.
/// - Returns: The suggestion, or `nil` when nothing is close.
func suggestion(for text: String, among candidates: [String]) -> String? {
  let extensions = candidates.filter { $0.hasPrefix(text) }
  if !text.isEmpty, extensions.count == 1 { return extensions[0] }
  var best: (candidate: String, distance: Int)?
  for candidate in candidates {
    let distance = editDistance(text, candidate)
    if distance <= 2, distance < best?.distance ?? .max {
      best = (candidate, distance)
    }
  }
  return best?.candidate
}

/// The Levenshtein distance: how many single-character insertions, deletions or
/// substitutions turn `a` into `b`.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  var previous = Array(0...b.count)
  for i in a.indices {
    var current = [i + 1]
    for j in b.indices {
      let substitution = previous[j] + (a[i] == b[j] ? 0 : 1)
      current.append(min(substitution, previous[j + 1] + 1, current[j] + 1))
    }
    previous = current
  }
  return previous[b.count]
}
