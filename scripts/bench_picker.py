#!/usr/bin/env python3
"""The search picker at a pseudo-terminal: keystroke to results on screen, against fzf's reload
on the same word list in the same run, and the redraw after a key with 100,000 results.

keystroke_ms: the box holds k<N> (11 matches of 100,000 words k0z … k99999z); the time from
typing `z` to the screen showing the one match, for `loadctl search --debounce 0 --exec 'grep
-F -- {query} words'` and for `fzf --disabled --bind 'change:reload:grep -F -- {q} words'`
(null when fzf is not installed). redraw_ms: with 100,000 results shown (plain words, then
hostile rows: escapes, bidi controls, wide characters), the time from Down to the screen showing
the selection moved. Each is the median of RUNS, with the maximum (`NAME_ms`, `NAME_max_ms`).

Usage: bench_picker.py RUNS LOADCTL
"""
import fcntl
import json
import os
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time


def session(command, cwd):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = dict(os.environ, TERM="xterm", NO_COLOR="1")
    child = subprocess.Popen(command, stdin=slave, stdout=subprocess.DEVNULL, stderr=slave,
                             env=env, start_new_session=True, cwd=cwd)
    return child, master


class Screen:
    def __init__(self, master):
        self.master = master
        self.output = bytearray()

    def pump(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            self.output.extend(os.read(self.master, 1 << 20))

    def settle(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.01)

    def wait(self, pattern, start, limit=60):
        deadline = time.monotonic() + limit
        expression = re.compile(pattern)
        while time.monotonic() < deadline:
            if expression.search(self.output, start):
                return time.monotonic()
            self.pump(0.0005)
        raise TimeoutError(pattern)

    def timed(self, keys, pattern):
        start = len(self.output)
        began = time.monotonic()
        os.write(self.master, keys)
        return (self.wait(pattern, start) - began) * 1000


def keystrokes(command, runs, cwd, eleven, one):
    child, master = session(command, cwd)
    screen = Screen(master)
    screen.settle(1.5)
    times = []
    for run in range(runs):
        os.write(master, b"\x15")
        screen.settle(0.3)
        start = len(screen.output)
        os.write(master, b"k%d" % (1000 + run * 417 % 9000))
        screen.wait(eleven, start)
        screen.settle(0.2)
        times.append(screen.timed(b"z", one))
    child.kill()
    child.wait()
    return times


def redraws(command, runs, cwd):
    child, master = session(command, cwd)
    screen = Screen(master)
    screen.settle(1.0)
    os.write(master, b"a")
    screen.wait(rb"100000 of 100000", 0)
    screen.settle(0.5)
    times = []
    for run in range(runs):
        times.append(screen.timed(b"\x1b[B", rb"\xe2\x96\x8c k?%d[ z]" % (run + 1)))
        screen.settle(0.05)
    child.kill()
    child.wait()
    return times


def figure(result, name, times):
    result[name + "_ms"] = round(statistics.median(times), 1) if times else None
    result[name + "_max_ms"] = round(max(times), 1) if times else None


def main():
    runs, loadctl = int(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="loadctl-bench-picker-")
    try:
        with open(os.path.join(work, "words"), "w") as words:
            words.writelines("k%dz\n" % n for n in range(100000))
        with open(os.path.join(work, "hostile"), "w") as hostile:
            hostile.writelines("%d \x1b[31mred\x1b[0m \u202eevil \u4e2d\u6587 %s\n" % (n, "x" * 30)
                               for n in range(100000))
        result = {}
        figure(result, "keystroke", keystrokes(
            [loadctl, "search", "--debounce", "0", "--exec", "grep -F -- {query} words"], runs,
            work, rb"11 of 11", rb"  1 of 1  \["))
        fzf = shutil.which("fzf")
        figure(result, "fzf_keystroke", keystrokes(
            [fzf, "--disabled", "--bind", "change:reload:grep -F -- {q} words || true"], runs,
            work, rb"m11/11\x1b", rb"m1/1\x1b") if fzf else [])
        for name in ("words", "hostile"):
            figure(result, "redraw_" + name, redraws(
                [loadctl, "search", "--debounce", "0", "--exec", ": {query}; cat " + name], runs,
                work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
