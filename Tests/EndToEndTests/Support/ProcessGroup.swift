import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds the processes still alive in a process group.
///
/// Every child the harness starts leads a group of its own, and whatever it forks stays in that
/// group unless it asks otherwise. After loadctl exits, a live member of its group is a process
/// it left behind: a leak the tests must catch, since nothing in loadctl may outlive `run`.
enum ProcessGroup {
  /// The pids of live (not zombie) processes in group `group`.
  ///
  /// On Linux this reads `/proc`; elsewhere it can only tell whether the group exists, and
  /// returns `[group]` if it does.
  static func liveMembers(of group: Int32) -> [Int32] {
    #if os(Linux)
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      return entries.compactMap(Int32.init).filter { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let fields = fieldsAfterName(stat), fields.count > 2
        else { return false }
        // Fields after "pid (comm)": state, ppid, pgrp, …
        return fields[0] != "Z" && fields[0] != "X" && Int32(fields[2]) == group
      }.sorted()
    #else
      return kill(-group, 0) == 0 || errno == EPERM ? [group] : []
    #endif
  }

  /// The space-separated fields after the command name, which may itself hold spaces or `)`.
  private static func fieldsAfterName(_ stat: String) -> [Substring]? {
    guard let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ")
  }
}
