"""Tell an interrupted workflow run from a failed one.

Snakemake ends a run stopped by Ctrl-C (SIGINT) or SIGTERM with the same "At least one job did not
complete successfully" as a failed job. The workflow's ``onstart`` hook calls
:func:`remember_interrupts`, which notes such a signal before Snakemake's own handler runs, and its
``onerror`` hook prints :func:`interruption_message` when there is one.
"""

from __future__ import annotations

import signal

_received: list[str] = []


def remember_interrupts(signals=(signal.SIGINT, signal.SIGTERM)) -> None:
    """Note each of ``signals`` when it arrives, then pass it on to the handler installed before.

    Parameters
    ----------
    signals
        The signals to watch; Snakemake handles SIGINT (KeyboardInterrupt) and SIGTERM itself.
    """
    for sig in signals:
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue  # ignored or default: nothing of Snakemake's to pass it on to

        def handler(signum, frame, previous=previous):
            _received.append(signal.Signals(signum).name)
            return previous(signum, frame)

        signal.signal(sig, handler)


def interruption_message() -> str | None:
    """What to tell the user after an interrupted run, or None if no watched signal arrived."""
    if not _received:
        return None
    return (
        f"the run was interrupted ({_received[0]}), not stopped by a failing job: finished outputs are kept; "
        "rerun the same command to resume"
    )
