"""Snakemake's terminal output for kernbench runs: one line per finished job.

The default workflow profile (``profiles/default/config.yaml``) selects this logger (``logger: [kernbench]``).
It writes what Snakemake's own terminal handler writes, less the rule block, the shell command and the
scheduling lines of every job; each finished job gets one line instead, with its step count::

    [07:46:57] 12 of 175 steps (7%) done: lstm dataset=sst system=BiLSTM (3m 12s)

Errors, warnings, job statistics and the closing messages come through as Snakemake writes them. With
``--printshellcmds`` (``-p``) or ``--verbose`` the output is Snakemake's own, whole. The log file under
``.snakemake/log/`` is written by Snakemake's file handler, which this logger leaves alone: it keeps every rule
block.

Snakemake finds the logger by its module name (``snakemake_logger_plugin_<name>``), so the module sits at the
top level of the distribution.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field

from snakemake.logging import ColorizingTextHandler, DefaultFilter, DefaultFormatter
from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent
from snakemake_interface_logger_plugins.settings import LogHandlerSettingsBase

#: Events that the one-line-per-job output leaves out (the job's line replaces them).
HIDDEN_EVENTS = frozenset({LogEvent.JOB_INFO, LogEvent.GROUP_INFO, LogEvent.SHELLCMD, LogEvent.JOB_STARTED})
#: The event of a finished job's line.
FINISHED = "kernbench_job_finished"
#: Messages without an event that only make sense beside the rule blocks.
HIDDEN_MESSAGES = (
    "Select jobs to execute...",
    "Reasons:\n",
    "DAG of jobs will be updated after completion.",
    "Updating checkpoint dependencies.",
)


@dataclass
class LogHandlerSettings(LogHandlerSettingsBase):
    """The logger takes no settings of its own; Snakemake's ``-p``, ``--verbose`` and ``--quiet`` steer it."""


@dataclass
class _Job:
    label: str
    started: float = field(default_factory=time.monotonic)


def job_label(rule: str, wildcards: dict | None) -> str:
    """A job as its finished line names it: the rule, then its wildcards.

    Parameters
    ----------
    rule : str
        Rule name.
    wildcards : dict or None
        Wildcard values by name.

    Returns
    -------
    str
        For example ``"lstm dataset=sst system=BiLSTM"``.
    """
    return " ".join([rule, *(f"{name}={value}" for name, value in (wildcards or {}).items())])


def format_duration(seconds: float) -> str:
    """A job's wall time, to the second: ``"42s"``, ``"3m 12s"``, ``"1h 05m"``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


class LogHandler(LogHandlerBase):
    """Snakemake's terminal handler with one line per finished job instead of the rule blocks."""

    def __post_init__(self) -> None:
        settings = self.common_settings
        self.full = bool(settings.printshellcmds or settings.verbose)
        self.terminal = ColorizingTextHandler(
            nocolor=settings.nocolor,
            stream=sys.stdout if settings.stdout else sys.stderr,
            formatter=DefaultFormatter(settings.quiet, settings.show_failed_logs),
            filter=DefaultFilter(
                settings.quiet, settings.debug_dag, settings.verbose, settings.dryrun, settings.printshellcmds
            ),
        )
        self.jobs: dict[int, _Job] = {}
        self.finished: list[tuple[str, float | None]] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` to the terminal, or note it for the line of its job.

        Parameters
        ----------
        record : logging.LogRecord
            A record of Snakemake's logger.
        """
        if self.full:
            self.terminal.handle(record)
            return
        event = getattr(record, "event", None)
        if event == LogEvent.JOB_INFO:
            self.jobs[record.jobid] = _Job(job_label(record.rule_name, record.wildcards))
        elif event == LogEvent.JOB_FINISHED:
            job = self.jobs.pop(record.job_id, None)
            label = job.label if job else record.getMessage()
            self.finished.append((label, None if job is None else time.monotonic() - job.started))
        elif event == LogEvent.PROGRESS:
            self._finished_lines(record)
        elif event in HIDDEN_EVENTS or (event is None and str(record.msg).startswith(HIDDEN_MESSAGES)):
            return
        else:
            self.terminal.handle(record)

    def _finished_lines(self, progress: logging.LogRecord) -> None:
        # A group job finishes several jobs before one progress record: each gets its line.
        finished, self.finished = self.finished, []
        if not self.terminal.filter(progress):  # --quiet progress
            return
        done, total = progress.done, progress.total
        steps = f"{done} of {total} steps ({done / total if total else 1:.0%}) done"
        for label, seconds in finished or [("", None)]:
            line = f"[{time.strftime('%H:%M:%S')}] {steps}"
            if label:
                line += f": {label}"
            if seconds is not None:
                line += f" ({format_duration(seconds)})"
            # An event of its own: Snakemake's formatter writes the message as it is, in the colour of progress.
            self.terminal.handle(
                logging.makeLogRecord({"msg": line, "levelno": logging.INFO, "levelname": "INFO", "event": FINISHED})
            )

    def flush(self) -> None:
        """Flush the terminal stream."""
        self.terminal.flush()

    @property
    def writes_to_stream(self) -> bool:
        """It replaces Snakemake's terminal handler."""
        return True

    @property
    def writes_to_file(self) -> bool:
        """It writes no file."""
        return False

    @property
    def has_filter(self) -> bool:
        """It filters with Snakemake's own filter, then by event."""
        return True

    @property
    def has_formatter(self) -> bool:
        """It formats with Snakemake's own formatter."""
        return True

    @property
    def needs_rulegraph(self) -> bool:
        """It needs no rule graph."""
        return False
