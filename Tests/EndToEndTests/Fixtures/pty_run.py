#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, follows a script of steps, and reports what happened.

usage: pty_run.py STEPS_JSON [NAME=VALUE...] -- COMMAND [ARGS...]

The command gets this environment minus NO_COLOR, with TERM=xterm and COLUMNS=80, then the
NAME=VALUE settings given before "--".

STEPS_JSON is a list of steps:
  ["wait", TEXT]      wait until TEXT appears in the terminal output (failsafe: 30 s, times LOADCTL_E2E_TIMEOUT_SCALE)
  ["send", TEXT]      type TEXT (may contain control characters such as "\\u0003")
  ["signal", NAME]    send a signal (INT, TERM) to the command
  ["close"]           close the terminal's input side (the command sees end of input)
  ["resize", COLS]    make the terminal COLS columns wide (TIOCSWINSZ; the command gets SIGWINCH)
  ["resize", COLS, ROWS]  the same, ROWS rows high (else 24)
  ["stopped"]         wait until the command is stopped (Ctrl-Z), and record whether the
                      terminal's settings were restored at that moment (termios_when_stopped)
  ["wait_raw"]        wait until the terminal is in raw (non-canonical) mode again

The setting PTY_RUN_JOB=1 starts the command in a process group of its own inside this
program's session, as a job-control shell does, instead of a new session: a stop signal then
stops it (in the orphaned group of a new session it would be discarded).

Prints one JSON object: {"exit": N | null, "signal": N | null, "termios_restored": bool,
"output": TEXT, "error": TEXT | null, "termios_when_stopped": bool | null}. termios_restored compares the terminal's settings
(what `stty -g` shows) before the command started and after it ended.
"""
import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time

# A guard, not a measurement: how long a step may wait before the run is reported as stuck.
FAILSAFE = 30 * float(os.environ.get("LOADCTL_E2E_TIMEOUT_SCALE", "1"))


def main():
    steps = json.loads(sys.argv[1])
    command = sys.argv[sys.argv.index("--") + 1:]
    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    env = dict(os.environ, TERM="xterm", COLUMNS="80")
    env.pop("NO_COLOR", None)
    for setting in sys.argv[2:sys.argv.index("--")]:
        name, _, value = setting.partition("=")
        env[name] = value
    job = env.pop("PTY_RUN_JOB", None) == "1"
    if job:
        child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                                 process_group=0, pass_fds=())
    else:
        child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                                 start_new_session=True, pass_fds=())
    when_stopped = None
    output = b""
    error = None

    def pump(timeout):
        nonlocal output
        ready, _, _ = select.select([master], [], [], timeout)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                return False
            output += data
            return bool(data)
        return True

    try:
        for step in steps:
            if step[0] == "wait":
                deadline = time.monotonic() + FAILSAFE
                while step[1].encode() not in output:
                    if time.monotonic() > deadline:
                        raise TimeoutError("never saw %r" % step[1])
                    if not pump(0.05) and child.poll() is not None:
                        raise EOFError("exited before %r" % step[1])
            elif step[0] == "send":
                os.write(master, step[1].encode())
            elif step[0] == "signal":
                child.send_signal(getattr(signal, "SIG" + step[1]))
            elif step[0] == "close":
                os.write(master, b"\x04")
            elif step[0] == "resize":
                rows = int(step[2]) if len(step) > 2 else 24
                fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, int(step[1]), 0, 0))
                child.send_signal(signal.SIGWINCH)
            elif step[0] == "stopped":
                deadline = time.monotonic() + FAILSAFE
                while True:
                    with open("/proc/%d/stat" % child.pid) as stat:
                        state = stat.read().rsplit(")", 1)[1].split()[0]
                    if state == "T":
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError("never stopped")
                    pump(0.05)
                when_stopped = termios.tcgetattr(slave) == before
            elif step[0] == "wait_raw":
                deadline = time.monotonic() + FAILSAFE
                while termios.tcgetattr(slave)[3] & termios.ICANON:
                    if time.monotonic() > deadline:
                        raise TimeoutError("never raw again")
                    pump(0.05)
        deadline = time.monotonic() + FAILSAFE
        while child.poll() is None and time.monotonic() < deadline:
            pump(0.05)
        if child.poll() is None:
            child.kill()
            error = "did not exit"
    except Exception as exc:  # report, then clean up
        error = str(exc)
        child.kill()
    child.wait()
    after = termios.tcgetattr(slave)
    # The kernel hands what the command wrote last to this side later, on a worker: with the
    # terminal's other side closed, reading goes on until EIO, which comes only after it.
    os.close(slave)
    deadline = time.monotonic() + FAILSAFE
    while True:
        if time.monotonic() > deadline:
            error = error or "the terminal stayed open after the command ended"
            break
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        output += data
    code = child.returncode
    print(json.dumps({
        "exit": code if code >= 0 else None,
        "signal": -code if code < 0 else None,
        "termios_restored": before == after,
        "output": output.decode("utf-8", "replace"),
        "error": error,
        "termios_when_stopped": when_stopped,
    }))


if __name__ == "__main__":
    main()
