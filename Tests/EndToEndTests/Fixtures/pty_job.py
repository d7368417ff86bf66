#!/usr/bin/env python3
"""Runs a command as a job of a small shell that owns a pseudo-terminal, with job control.

Usage: pty_job.py STEPS_JSON [fg|bg] [TYPEAHEAD] -- COMMAND [ARG...]

A child becomes a session leader with the pty as its controlling terminal, as a login shell
is; it starts COMMAND in a process group of its own, in the foreground (`fg`) or in the
background (`bg`, as `cmd &`), with default signal dispositions, and reports the job's wait
statuses (stopped N, continued, exited N, signaled N). TYPEAHEAD is written to the terminal
before the command starts: what a person typed for the shell meanwhile.

Steps, in order:
  ["wait", TEXT]     wait until TEXT appears in the output printed since the last action or the
                     last TEXT waited for
  ["send", TEXT]     type TEXT
  ["status", WORD]   wait until the job's next status starts with WORD (stopped, continued, ...);
                     a `continued` on the way is passed over
  ["fg"] / ["bg"]    continue the job in the foreground / in the background, as the shell would
Every wait has a failsafe of 30 s (times LOADCTL_E2E_TIMEOUT_SCALE).

Prints one JSON object: exit or signal, every status, the type-ahead bytes still unread when the
job first stopped, whether the terminal's settings are as they were, the output, and an error.
"""
import fcntl
import json
import os
import select
import signal
import struct
import sys
import termios
import time

FAILSAFE = 30.0 * float(os.environ.get("LOADCTL_E2E_TIMEOUT_SCALE", "1") or "1")
JOB_SIGNALS = (signal.SIGTTOU, signal.SIGTTIN, signal.SIGTSTP, signal.SIGINT, signal.SIGQUIT,
               signal.SIGHUP)


def shell(slave, command, background, status_w, command_r):
    """The session leader: starts the job and reports its statuses; never returns."""
    try:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for number in JOB_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        child = os.fork()
        if child == 0:
            os.setpgid(0, 0)
            if not background:
                os.tcsetpgrp(slave, os.getpid())
            for number in JOB_SIGNALS + (signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD,
                                         signal.SIGCONT):
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.closerange(3, 1024)
            os.execv(command[0], command)
        try:
            os.setpgid(child, child)
        except OSError:
            pass
        if not background:
            os.tcsetpgrp(slave, child)
        os.write(status_w, b"pid %d\n" % child)
        os.set_blocking(command_r, False)
        while True:
            pid, status = os.waitpid(child, os.WUNTRACED | os.WCONTINUED | os.WNOHANG)
            if pid == child:
                if os.WIFSTOPPED(status):
                    os.tcsetpgrp(slave, os.getpgrp())  # the shell takes the terminal back
                    os.write(status_w, b"stopped %d\n" % os.WSTOPSIG(status))
                elif os.WIFCONTINUED(status):
                    os.write(status_w, b"continued\n")
                elif os.WIFSIGNALED(status):
                    os.write(status_w, b"signaled %d\n" % os.WTERMSIG(status))
                    break
                elif os.WIFEXITED(status):
                    os.write(status_w, b"exited %d\n" % os.WEXITSTATUS(status))
                    break
            try:
                order = os.read(command_r, 16)
            except BlockingIOError:
                order = b""
            if order.startswith(b"fg"):
                os.tcsetpgrp(slave, child)
            if order:
                os.kill(-child, signal.SIGCONT)
            time.sleep(0.005)
        time.sleep(0.5)  # the pty stays open while the test reads the last output
    finally:
        os._exit(0)


def main():
    separator = sys.argv.index("--")
    options = sys.argv[1:separator]
    steps = json.loads(options[0])
    background = len(options) > 1 and options[1] == "bg"
    typeahead = options[2].encode() if len(options) > 2 else b""
    command = sys.argv[separator + 1:]

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    before = termios.tcgetattr(slave)
    if typeahead:
        os.write(master, typeahead)
    status_r, status_w = os.pipe()
    command_r, command_w = os.pipe()
    leader = os.fork()
    if leader == 0:
        os.close(master)
        os.close(status_r)
        os.close(command_w)
        shell(slave, command, background, status_w, command_r)
    os.close(status_w)
    os.close(command_r)
    os.set_blocking(master, False)
    os.set_blocking(status_r, False)

    output = b""
    statuses = []
    seen = 0  # statuses a `status` step has already taken
    mark = 0  # where the output a `wait` searches starts
    typeahead_left = None
    error = None
    job = None

    def pump(timeout):
        nonlocal output, typeahead_left, job
        ready, _, _ = select.select([master, status_r], [], [], timeout)
        if master in ready:
            try:
                output += os.read(master, 65536)
            except OSError:
                pass
        if status_r in ready:
            try:
                data = os.read(status_r, 1024)
            except BlockingIOError:
                data = b""
            for line in data.decode().splitlines():
                if line.startswith("pid "):
                    job = int(line.split()[1])
                    continue
                if line.startswith("stopped") and typeahead_left is None:
                    count = struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\0" * 4))[0]
                    typeahead_left = count
                statuses.append(line)

    def until(done, what):
        deadline = time.monotonic() + FAILSAFE
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("never saw " + what)
            pump(0.05)

    try:
        for step in steps:
            if step[0] == "wait":
                text = step[1].encode()
                until(lambda: text in output[mark:], repr(step[1]))
                mark = output.index(text, mark) + len(text)
            elif step[0] == "send":
                os.write(master, step[1].encode())
                mark = len(output)
            elif step[0] == "status":
                # A `continued` that came and went (`bg` into a stop) is passed over.
                while True:
                    until(lambda: len(statuses) > seen, "a status " + step[1])
                    seen += 1
                    if statuses[seen - 1].startswith(step[1]):
                        break
                    if statuses[seen - 1] != "continued":
                        raise RuntimeError("status %r, not %r" % (statuses[seen - 1], step[1]))
            elif step[0] in ("fg", "bg"):
                mark = len(output)
                os.write(command_w, step[0].encode())
        until(lambda: any(s.split()[0] in ("exited", "signaled") for s in statuses), "the end")
    except Exception as exc:  # report, then clean up
        error = str(exc)
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pump(0.02)
    last = statuses[-1].split() if statuses else []
    after = termios.tcgetattr(slave)
    if error:
        for group in (job, leader):
            try:
                if group:
                    os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
    os.waitpid(leader, 0)
    print(json.dumps({
        "exit": int(last[1]) if last[:1] == ["exited"] else None,
        "signal": int(last[1]) if last[:1] == ["signaled"] else None,
        "statuses": statuses,
        "typeahead_left": typeahead_left,
        "termios_restored": before == after,
        "output": output.decode("utf-8", "replace"),
        "error": error,
    }))


if __name__ == "__main__":
    main()
