import LoadctlCore

/// A loaded profile: its name and whatever other fields the source had, in their order.
///
/// It lives apart from ``ProfileFlow`` so that the profile-decoding fuzz target
/// (`Fuzz/ProfileJSON`) can compile it without the store and the runtime.
package struct Profile: Sendable, Equatable {
  package var name: String
  /// Every field of the source object, `name` included, as read.
  package var fields: JSONValue

  package init(name: String, fields: JSONValue? = nil) {
    self.name = name
    self.fields = fields ?? .object([("name", .string(name))])
  }

  /// Reads a profile from a JSON object with at least a string `name`, each key once (a key
  /// given twice has no one meaning: readers differ on which value wins).
  package static func decode(_ value: JSONValue) throws(LoadFailure) -> Profile {
    guard case .object(let pairs) = value else {
      throw LoadFailure("profile JSON must be an object, with at least a string \"name\"")
    }
    var seen = Set<String>()
    for (key, _) in pairs where !seen.insert(key).inserted {
      throw LoadFailure("profile JSON has the key \(JSONValue.string(key).serialized) twice")
    }
    guard case .string(let name)? = value["name"] else {
      throw LoadFailure("profile JSON has no string \"name\" field")
    }
    return Profile(name: name, fields: value)
  }

  /// `name: Taylor, city: Lisbon` for text output, keys and strings as read: control
  /// characters are left to the caller to escape (``ProfileState/summary`` does).
  package var summary: String {
    guard case .object(let pairs) = fields else { return "name: \(name)" }
    return pairs.map { key, value in
      if case .string(let text) = value { return "\(key): \(text)" }
      return "\(key): \(value.serialized)"
    }.joined(separator: ", ")
  }
}
