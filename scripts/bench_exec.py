#!/usr/bin/env python3
"""Teardown of a stale command under `search --exec`, for scripts/bench.sh.

Usage: bench_exec.py RUNS LOADCTL

Types `slow`, then `fast` 300 ms later. The `slow` query's command never ends by itself; the new
query cancels it (the `latest` policy), which tears its process group down and reaps it before
`request_cancelled` is printed. Measured from loadctl's own JSON timestamps:

  teardown_ms        request_cancelled(slow) - query_changed(fast), the command honouring SIGTERM
  over_grace_ms      the same for a command that ignores SIGTERM, minus --kill-after (300 ms)

Prints one JSON object with the medians.
"""

import json
import statistics
import subprocess
import sys

GRACE_MS = 300


def run(loadctl, slow_command):
    template = "case {query} in slow) %s;; *) echo x;; esac" % slow_command
    out = subprocess.run(
        [loadctl, "search", "--json", "--input", "-", "--debounce", "50ms", "--timeout", "600s",
         "--kill-after", "%dms" % GRACE_MS, "--exec", template],
        input="slow\n+300ms fast\n", capture_output=True, text=True, timeout=60, check=True).stdout
    events = [json.loads(line) for line in out.splitlines()]
    typed = next(e["elapsed_ms"] for e in events
                 if e["event"] == "transition" and e.get("action") == "query_changed"
                 and e.get("query") == "fast")
    cancelled = next(e["elapsed_ms"] for e in events
                     if e["event"] == "request_cancelled" and e.get("query") == "slow")
    return cancelled - typed


def main():
    runs, loadctl = int(sys.argv[1]), sys.argv[2]
    honours = [run(loadctl, "exec sleep 100") for _ in range(runs)]
    ignores = [run(loadctl, "trap '' TERM; exec sleep 100") - GRACE_MS for _ in range(runs)]
    print(json.dumps({
        "teardown_ms": round(statistics.median(honours), 2),
        "over_grace_ms": round(statistics.median(ignores), 2),
    }))


if __name__ == "__main__":
    main()
