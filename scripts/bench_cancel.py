#!/usr/bin/env python3
"""Ctrl-C -> process gone, for scripts/bench.sh.

Starts COMMAND RUNS times; each time waits for the first stdout line containing MARKER (the
process is at work: loading, ticking, its children sleeping), sends SIGINT, reads the rest of
stdout (the final transitions and `end` must still be printed) and times from the signal to
waitpid returning. Prints one JSON line: {"runs":N,"median_ms":...,"min_ms":...,"signaled":true,
"tail_lines":K} where signaled says every run died by SIGINT and tail_lines is the median count of
lines printed after the signal.

Usage: bench_cancel.py RUNS MARKER COMMAND [ARGS...]
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time


def one_run(marker, command):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for line in process.stdout:
        if marker.encode() in line:
            break
    else:
        process.wait()
        raise SystemExit(f"error: {command[0]} ended before printing {marker!r}")
    started = time.perf_counter()
    process.send_signal(signal.SIGINT)
    tail = process.stdout.read().splitlines()
    _, status = os.waitpid(process.pid, 0)
    took = (time.perf_counter() - started) * 1000
    process.returncode = 0  # reaped above; keeps Popen from waiting again
    signaled = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT
    return took, signaled, len(tail)


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    runs, marker, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    results = [one_run(marker, command) for _ in range(runs)]
    times = [took for took, _, _ in results]
    print(json.dumps({
        "runs": runs,
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "signaled": all(signaled for _, signaled, _ in results),
        "tail_lines": statistics.median_low([tail for _, _, tail in results]),
    }))


if __name__ == "__main__":
    main()
