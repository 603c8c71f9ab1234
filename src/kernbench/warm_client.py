"""The ``kernbench`` entry point: a job's command runs in the run's warm worker if it has one, else here.

This module is what every job's process imports, so it imports only what the hand-over needs;
the server side is :mod:`kernbench.warm_worker`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

#: Environment variable naming the warm worker's socket; set for the jobs of a run that has one.
SOCKET_ENV = "KERNBENCH_WARM_WORKER"

#: Largest message either side sends (a request carries the job's environment).
MESSAGE_BYTES = 1 << 20


def main() -> int:
    """Run the ``kernbench`` command of ``sys.argv``; return its exit code."""
    socket_path = os.environ.get(SOCKET_ENV)
    code = delegate(socket_path, sys.argv[1:]) if socket_path else None
    if code is None:
        from kernbench.cli import main as run_here

        code = run_here()
    return code


def delegate(socket_path: str, argv: list[str]) -> int | None:
    """Run ``kernbench argv`` in the warm worker at ``socket_path``; its exit code, or None if no worker answers.

    The standard streams, environment and working directory go with the request, so the
    command writes where it would have written had it run here. SIGTERM, SIGINT and SIGHUP sent to
    this process are passed on to the command.
    """
    client = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        client.connect(socket_path)
    except OSError:
        client.close()
        return None
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    with client:
        socket.send_fds(client, [request], [0, 1, 2])
        started = client.recv(MESSAGE_BYTES)
        if not started:
            print("kernbench: the warm worker closed the connection before starting the command", file=sys.stderr)
            return 1
        child = json.loads(started)["pid"]

        def forward(signum, _frame):
            try:
                os.kill(child, signum)
            except ProcessLookupError:
                pass

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, forward)
        finished = client.recv(MESSAGE_BYTES)
    if not finished:
        print(f"kernbench: the warm worker stopped while running the command (pid {child})", file=sys.stderr)
        return 1
    status = json.loads(finished)["status"]
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
