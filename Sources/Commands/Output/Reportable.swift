/// A flow state that can be printed: a stable JSON snapshot for scripts, a short line for people.
///
/// Renderers never inspect a flow's types; they print what these give. An enum-like state names
/// its case in a `state` field of the snapshot and carries the case's values beside it.
///
/// ```swift
/// extension LoadState: ReportableState where Value == Profile {
///   var snapshot: JSONValue { .object([("state", .string(name))]) }
///   var summary: String { name }
/// }
/// ```
public protocol ReportableState: Sendable {
  /// A JSON object describing the whole state; keys are snake_case.
  var snapshot: JSONValue { get }
  /// A few words for text output, e.g. `loaded(name: Taylor)`.
  var summary: String { get }
}

/// A flow action that can be printed: its case name, its payload, and a short human form.
public protocol ReportableAction: Sendable {
  /// The case name as it appears in JSON (`load`, `delayed_increment`).
  var name: String { get }
  /// The action's associated values, as extra JSON fields of its events.
  var fields: [(String, JSONValue)] { get }
  /// A few words for text output; by default the name.
  var summary: String { get }
}

extension ReportableAction {
  public var fields: [(String, JSONValue)] { [] }
  public var summary: String { name }
}
