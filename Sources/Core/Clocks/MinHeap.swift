/// A binary min-heap: the virtual clock's queue of deadlines, O(log n) per sleeper.
struct MinHeap<Element: Comparable> {
  private var items: [Element] = []

  /// The smallest element, if any.
  var min: Element? { items.first }

  mutating func insert(_ element: Element) {
    items.append(element)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popMin() -> Element? {
    guard !items.isEmpty else { return nil }
    items.swapAt(0, items.count - 1)
    let smallest = items.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smaller = parent
      if left < items.count, items[left] < items[smaller] { smaller = left }
      if right < items.count, items[right] < items[smaller] { smaller = right }
      guard smaller != parent else { return smallest }
      items.swapAt(parent, smaller)
      parent = smaller
    }
  }
}
