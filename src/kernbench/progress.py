"""Progress bars of the long jobs, written to standard error (a job's log under Snakemake)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

from tqdm import tqdm

#: Set to ``0`` to turn the bars off.
ENVIRONMENT_SWITCH = "KERNBENCH_PROGRESS"


#: What a bar has counted: its description, percentage, bar and ``n/total``, before the times and the rate.
_COUNT = re.compile(r"^(.*\| *\S+/\S+) \[")


class _LineStream:
    """A log file seen through tqdm: each redraw of a bar is a whole line, not a carriage return.

    A redraw at the count of the line before it is left out: closing a bar draws its last count again (with
    the overall rate), which a terminal draws over the same line and a log would keep twice.
    """

    def __init__(self, stream):
        self.stream = stream
        self.last = None

    def write(self, text: str) -> None:
        for line in re.split(r"[\r\n]", text):
            line = line.rstrip()
            count = _COUNT.match(line)
            state = count.group(1) if count else line
            if line.strip() and state != self.last:
                self.stream.write(line + "\n")
                self.last = state

    def flush(self) -> None:
        self.stream.flush()


def progress(iterable: Iterable, *, desc: str, total: int | None = None, unit: str = "it") -> Iterable:
    """Wrap ``iterable`` in a tqdm bar on standard error; the items pass through unchanged.

    A loop of fewer than two items shows no bar. In a terminal the bar redraws every second. In a log file (a Snakemake job's
    ``2> {log}``) it is plain ASCII and redraws at most every 30 seconds, so a
    long job leaves a few dozen lines rather than thousands.

    Parameters
    ----------
    iterable : iterable
        The loop to report on.
    desc : str
        What is being computed, shown before the bar.
    total : int, optional
        Number of items, when ``iterable`` has no length.
    unit : str, optional
        Name of one item.

    Returns
    -------
    iterable
        Yields the items of ``iterable`` in order.
    """
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    return tqdm(iterable, desc=desc, total=total, unit=unit, **bar_options(total))


def bar_options(total: int | None = None) -> dict:
    """Keyword arguments of tqdm that draw a bar as :func:`progress` does, for bars that tqdm makes itself.

    ``tqdm.keras.TqdmCallback(**bar_options(epochs))`` draws the epochs of a Keras model's training
    on standard error, one line per redraw in a log file.

    Parameters
    ----------
    total : int, optional
        Number of items; fewer than two show no bar.

    Returns
    -------
    dict
        ``file``, ``position``, ``mininterval``, ``ascii``, ``dynamic_ncols`` and ``disable``.
    """
    stream = sys.stderr
    interactive = hasattr(stream, "isatty") and stream.isatty()
    return {
        "file": stream if interactive else _LineStream(stream),
        "position": None if interactive else 0,  # nested bars in a log: lines one after the other, no cursor moves
        "mininterval": 1.0 if interactive else 30.0,
        "ascii": not interactive,
        "dynamic_ncols": interactive,
        "disable": os.environ.get(ENVIRONMENT_SWITCH, "1") == "0" or (total is not None and total < 2),
    }
