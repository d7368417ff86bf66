// The start-up reference of scripts/bench.sh: the least an async Swift program does before it
// prints a line, built the same way as loadctl (release, same linking), so that
// `loadctl --version` can be measured against it (wall time and peak RSS).
//
// Standard library only: no Foundation, no Dispatch. The one `await` makes `main` async, so the
// concurrency runtime starts just as it does in loadctl.
//
// Usage: HelloReference      prints one line and exits 0

/// Stands in for the work `--version` does: produce a string, on the async path.
func versionLine() async -> String {
  "HelloReference 1.0"
}

print(await versionLine())
