#!/usr/bin/env python3
"""A file write -> the new command's first output line, and output throughput, for BENCHMARKS.md.

Usage: bench_watch.py RUNS LOADCTL
       bench_watch.py throughput LOADCTL   (only the throughput, without entr or inotifywait)

Each watcher restarts `cat FILE; exec sleep 100` on a change of FILE: a write of `run-N` tears
the old command's group down and starts a new one, whose first line is `run-N`. Measured from
just before the write to the moment the watcher's stdout shows that line (read on a pipe), the
median of RUNS writes, 0.3 s apart, for:

  watch          loadctl counter --watch DIR --policy latest (default --watch-settle, 50ms)
  watch_settle0  the same with --watch-settle 0ms
  entr           echo FILE | entr -rn sh -c ...   (entr 5.x waits ~50 ms on purpose)
  pipe           while inotifywait -qq -e close_write DIR; do echo d; done | loadctl counter
                 --input - --policy latest

Throughput: `seq 1 1000000` into a file through `loadctl counter --exec` against the command
alone, and (informational) against `sed` writing the same prefix loadctl's text lines have, the
median of 11 wall times each, the three interleaved.

Prints one JSON object.
"""

import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def first_line_after_write(process, path, token, timeout=10.0):
    """Writes `token` to `path`; seconds until a stdout line ending with it is read."""
    start = time.monotonic()
    with open(path, "w") as handle:
        handle.write(token + "\n")
    buffered = b""
    deadline = start + timeout
    fd = process.stdout.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            raise RuntimeError("the watcher ended")
        buffered += chunk
        for line in buffered.split(b"\n")[:-1]:
            if line.rstrip().endswith(token.encode()):
                return time.monotonic() - start
        buffered = buffered.split(b"\n")[-1]
    raise RuntimeError("no line %r within %ss" % (token, timeout))


def drain(process, seconds):
    end = time.monotonic() + seconds
    fd = process.stdout.fileno()
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(0, end - time.monotonic()))
        if ready and not os.read(fd, 65536):
            return


def measure(command, directory, runs):
    path = os.path.join(directory, "f")
    with open(path, "w") as handle:
        handle.write("run-0\n")
    process = subprocess.Popen(
        command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL, start_new_session=True, cwd=directory)
    try:
        drain(process, 1.0)  # the watches in place, a first run (entr) done
        times = []
        for number in range(1, runs + 1):
            times.append(first_line_after_write(process, path, "run-%d" % number))
            drain(process, 0.3)
        return round(statistics.median(times) * 1000, 2)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def walls(commands, runs=11):
    """The median wall time of each command, run in turn so that the machine's load moves all."""
    times = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            start = time.monotonic()
            subprocess.run(command, shell=True, check=True)
            times[index].append(time.monotonic() - start)
    return [statistics.median(each) for each in times]


def throughput(loadctl, directory):
    out = os.path.join(directory, "out")
    alone, through, sed = walls([
        "seq 1 1000000 > %s" % out,
        "%s counter --exec 'seq 1 1000000' d > %s" % (loadctl, out),
        "seq 1 1000000 | sed 's/^/  0.003s  counter  #1 | /' > %s" % out,
    ])
    return {
        "seq_alone_s": round(alone, 4),
        "seq_through_loadctl_s": round(through, 4),
        "throughput_ratio": round(through / alone, 1),
        "seq_through_sed_s": round(sed, 4),
        "sed_ratio": round(through / sed, 2),
    }


def main():
    loadctl = os.path.abspath(sys.argv[2])
    directory = tempfile.mkdtemp(prefix="loadctl-bench-watch-")
    if sys.argv[1] == "throughput":
        try:
            print(json.dumps(throughput(loadctl, directory)))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return
    runs = int(sys.argv[1])
    work = "cat f; exec sleep 100"
    counter = "%s counter --policy latest --exec '%s'" % (loadctl, work)
    try:
        results = {
            "watch_ms": measure("%s --watch ." % counter, directory, runs),
            "watch_settle0_ms": measure(
                "%s --watch . --watch-settle 0ms" % counter, directory, runs),
            "entr_ms": measure("echo f | entr -rn sh -c '%s'" % work, directory, runs),
            "pipe_ms": measure(
                "while inotifywait -qq -e close_write .; do echo d; done | %s --input -"
                % counter, directory, runs),
        }
        results.update(throughput(loadctl, directory))
        print(json.dumps(results))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
