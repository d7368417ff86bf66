/// The fields in which `expected` and `actual` differ, one `−` line and one `+` line each,
/// found through `Mirror` (nested structs, classes, tuples and enum payloads by path).
///
/// Empty when the two print the same although they differ; callers then show both whole.
func stateDiff(_ expected: Any, _ actual: Any, path: String = "") -> [String] {
  let (left, right) = (Mirror(reflecting: expected), Mirror(reflecting: actual))
  let composite: [Mirror.DisplayStyle] = [.struct, .class, .tuple, .enum]
  if let style = left.displayStyle, style == right.displayStyle, composite.contains(style),
    !left.children.isEmpty, left.children.count == right.children.count,
    zip(left.children, right.children).allSatisfy({ $0.label == $1.label })
  {
    return zip(left.children, right.children).flatMap { pair in
      let label = pair.0.label ?? "_"
      return stateDiff(pair.0.value, pair.1.value, path: path.isEmpty ? label : "\(path).\(label)")
    }
  }
  let (was, now) = (String(reflecting: expected), String(reflecting: actual))
  guard was != now else { return [] }
  let name = path.isEmpty ? "state" : path
  return ["  − \(name): \(was)", "  + \(name): \(now)"]
}
