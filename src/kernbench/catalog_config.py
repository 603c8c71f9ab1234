"""The config's ``catalog`` section: datasets of the user's own, added without editing code.

Each entry names one CSV or parquet file (read by :mod:`kernbench.data.user_table`),
the sha256 of its bytes and its task. :func:`parse_catalog` checks the section;
the workflow hands the checked entries to its jobs in the environment variable
:data:`ENV_VAR` (:func:`to_environment`), and a job's command reads them back
with :func:`from_environment` when it asks for them
(:func:`kernbench.catalog.catalog`). Nothing here reads the environment or
changes any state on import.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from kernbench.config_check import ConfigError

#: Environment variable holding the checked entries (JSON) for the workflow's jobs.
ENV_VAR = "KERNBENCH_CATALOG"

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
#: A category of a ranking dataset: it names run files (``runs/fisher/<name>/<system>/<category>.json``).
CATEGORY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

#: File formats, by suffix.
SUFFIXES = (".csv", ".parquet")

@dataclass(frozen=True)
class CatalogEntry:
    """One dataset of the ``catalog`` section.

    Attributes
    ----------
    name : str
        Dataset name in config, file names and tables.
    path : str
        Absolute path of the CSV or parquet file.
    sha256 : str
        Hex digest the file must have.
    task : str
        ``classification``, ``ordinal`` or ``ranking``: what a label is, and which paper's systems run.
    paper : str
        The paper whose systems run on it (``Paper.catalog_tasks``); its runs are filed under it.
    categories : tuple of str
        The categories ranked (task ``ranking``), one binary problem each; empty otherwise.
    """

    name: str
    path: str
    sha256: str
    task: str
    paper: str
    categories: tuple[str, ...] = ()

    @property
    def raw_path(self) -> str:
        """Path of the verified copy of the file, relative to the raw-files root."""
        return f"catalog/{self.name}{Path(self.path).suffix}"


def _categories(entry: dict, key: str, task: str) -> tuple[str, ...]:
    """The ``categories`` of an entry: a non-empty list of distinct names for a ranking dataset, absent otherwise."""
    given = entry.get("categories")
    if task != "ranking":
        if given is not None:
            raise ConfigError(f"config: {key}.categories is for task ranking; this entry's task is {task}")
        return ()
    if not isinstance(given, list) or not given:
        raise ConfigError(
            f"config: {key}.categories is missing: task ranking needs the list of categories to rank "
            "(one SVM per category, as Reuters' categories under fisher.categories)"
        )
    for category in given:
        if not isinstance(category, str) or not CATEGORY_PATTERN.fullmatch(category):
            raise ConfigError(
                f"config: {key}.categories: {category!r} is not a category name "
                "(letters, digits, '_', '.', '-', starting with a letter or digit)"
            )
    repeated = sorted({c for c in given if given.count(c) > 1})
    if repeated:
        raise ConfigError(f"config: {key}.categories lists {', '.join(map(repr, repeated))} more than once")
    return tuple(given)


def parse_catalog(
    section: dict | None,
    *,
    base_dir: str | os.PathLike,
    papers_of_tasks: Mapping[str, str],
    reserved: Collection[str],
) -> dict[str, CatalogEntry]:
    """Check the ``catalog`` section of a workflow config and return its entries.

    Parameters
    ----------
    section : dict
        ``{name: {"path": ..., "sha256": ..., "task": ..., "categories": ..., "lstm": ...}}``.
    base_dir : path-like
        Directory a relative ``path`` is relative to (the workflow's working directory).
    papers_of_tasks : mapping
        ``{task: paper}``: the tasks a catalog dataset may have and the paper whose systems run on each
        (:func:`kernbench.catalog.papers_of_tasks`).
    reserved : collection of str
        Names an entry cannot take (the built-in datasets and their categories: rows of the same tables).

    Returns
    -------
    dict
        ``{name: CatalogEntry}`` in the section's order.

    Raises
    ------
    ConfigError
        Naming the key, if a name is taken or malformed, or a path, digest, task or category list is not usable.
    """
    entries = {}
    for name, entry in (section or {}).items():
        key = f"catalog.{name}"
        if not NAME_PATTERN.fullmatch(str(name)):
            raise ConfigError(
                f"config: {key}: a dataset name is lower-case letters, digits and '_', starting with a letter"
            )
        if name in reserved:
            raise ConfigError(f"config: {key}: {name!r} is a built-in dataset or Reuters category; choose another name")
        if not isinstance(entry, dict):
            raise ConfigError(f"config: {key} must be a mapping with path and sha256, not {entry!r}")
        path = entry.get("path")
        if not isinstance(path, str) or not path:
            raise ConfigError(f"config: {key}.path is missing: the CSV or parquet file of the dataset")
        if Path(path).suffix not in SUFFIXES:
            raise ConfigError(f"config: {key}.path={path!r} is neither a .csv nor a .parquet file")
        sha256 = entry.get("sha256")
        if not isinstance(sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise ConfigError(
                f"config: {key}.sha256={sha256!r} is not a sha256 hex digest; "
                f"set it to the output of `sha256sum {path}`"
            )
        task = entry.get("task", "classification")
        if task not in papers_of_tasks:
            raise ConfigError(f"config: {key}.task={task!r} is not one of {', '.join(papers_of_tasks)}")
        categories = _categories(entry, key, task)
        entries[name] = CatalogEntry(
            name, os.path.abspath(os.path.join(base_dir, path)), sha256, task, papers_of_tasks[task], categories
        )
    return entries


def to_environment(entries: Mapping[str, CatalogEntry]) -> str:
    """The value of :data:`ENV_VAR` that hands ``entries`` to the jobs."""
    return json.dumps({name: asdict(entry) for name, entry in entries.items()}, sort_keys=True)


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, CatalogEntry]:
    """The entries the workflow handed to this job (none outside the workflow), read when called.

    Parameters
    ----------
    environ : mapping, optional
        Defaults to ``os.environ``.

    Returns
    -------
    dict
        ``{name: CatalogEntry}``.

    Raises
    ------
    ConfigError
        If the variable is set but is not what :func:`to_environment` writes.
    """
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    if not value:
        return {}
    try:
        return {
            name: CatalogEntry(**{**fields, "categories": tuple(fields.get("categories", ()))})
            for name, fields in json.loads(value).items()
        }
    except (ValueError, TypeError, AttributeError) as exc:
        raise ConfigError(f"environment variable {ENV_VAR} is not a catalog the workflow wrote: {exc}") from None
