"""One note instead of Snakemake's "Missing metadata" warning per output when the report is built elsewhere."""

from __future__ import annotations

import logging

PREFIX = "Missing metadata for file"


class MissingMetadataNote(logging.Filter):
    """Turn the first "Missing metadata" warning into one note at info level and drop the others.

    A results directory made by another checkout (or a fresh clone) has no job
    metadata in this checkout's ``.snakemake``, and ``snakemake --report`` warns
    once per output. The report takes every file from the results directory;
    the metadata only feeds its run-time panel, and the report's ``costs``
    table carries the jobs' times.

    Parameters
    ----------
    results_dir : str
        Named in the note.
    """

    def __init__(self, results_dir: str):
        super().__init__()
        self.results_dir = results_dir
        self.said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(PREFIX):
            return True
        if self.said:
            return False
        self.said = True
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = (
            f"Snakemake's job metadata for {self.results_dir} is not in this checkout (it was made elsewhere): "
            "the report holds every table and figure, its run-time panel lacks those jobs "
            "(the costs table has the cost of every rule).",
            (),
        )
        return True
