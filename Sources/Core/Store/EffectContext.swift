/// Which effect the current task is working for, so tools can attribute what it does.
///
/// The store binds this task-local around every effect it runs (and task-locals flow into child
/// tasks), so a tracing clock or logger can say "this sleep belonged to effect `search#3`"
/// without the flow passing anything around.
///
/// ```swift
/// if let effect = EffectContext.current { print("sleeping for", effect.label) }
/// ```
public enum EffectContext {
  /// The effect whose work is running on this task, if any.
  @TaskLocal public static var current: EffectInfo?
}
