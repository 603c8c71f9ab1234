"""The config's ``catalog`` section: datasets of the user's own, added without editing code.

Each entry names one CSV or parquet file (read by :mod:`kernbench.data.user_table`)
and the sha256 of its bytes. At start-up the workflow checks the section
(:func:`parse_catalog`, :func:`check_dataset_lists`) and calls :func:`install`,
which adds the entries to :data:`kernbench.catalog.DATASETS` and
:data:`kernbench.data.registry.RAW_DATASETS` and hands them to the workflow's
jobs in the environment variable :data:`ENV_VAR`; those two modules read it
when a job imports them, so every ``kernbench`` command knows the entries.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from kernbench.config_check import ConfigError

#: Environment variable holding the checked entries (JSON) for the workflow's jobs.
ENV_VAR = "KERNBENCH_CATALOG"

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*")

#: File formats, by suffix.
SUFFIXES = (".csv", ".parquet")


def papers_of_tasks() -> dict[str, str]:
    """``{task: paper}``: the paper whose systems a catalog dataset of each task runs (``Paper.catalog_tasks``).

    Its runs are filed under that paper (``runs/<paper>/<name>/``, the MLflow experiment ``kernbench-<paper>``).
    """
    from kernbench.papers import PAPERS

    return {task: name for name, paper in PAPERS.items() for task in paper.catalog_tasks}


#: Table 4 entry of the LSTMs for a catalog dataset whose entry gives none (or not for every system).
DEFAULT_LSTM_DATASET = "sst"


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
        A key of :func:`papers_of_tasks`.
    """

    name: str
    path: str
    sha256: str
    task: str = "classification"

    @property
    def raw(self) -> str:
        """Name of the dataset's raw entry in :data:`kernbench.data.registry.RAW_DATASETS`."""
        return f"catalog_{self.name}"

    @property
    def raw_path(self) -> str:
        """Path of the verified copy of the file, relative to the raw-files root."""
        return f"catalog/{self.name}{Path(self.path).suffix}"

    @property
    def paper(self) -> str:
        return papers_of_tasks()[self.task]


def reserved_names() -> frozenset[str]:
    """Names a catalog entry cannot take: the built-in datasets and the Reuters categories (rows of the same tables)."""
    from kernbench.catalog import BUILTIN_DATASETS
    from kernbench.data.reuters import TOP10

    return frozenset(BUILTIN_DATASETS) | frozenset(TOP10)


def parse_catalog(section: dict, *, base_dir: str | os.PathLike) -> dict[str, CatalogEntry]:
    """Check the ``catalog`` section of a workflow config and return its entries.

    Parameters
    ----------
    section : dict
        ``{name: {"path": ..., "sha256": ..., "task": ..., "lstm": ...}}``.
    base_dir : path-like
        Directory a relative ``path`` is relative to (the workflow's working directory).

    Returns
    -------
    dict
        ``{name: CatalogEntry}`` in the section's order.

    Raises
    ------
    ConfigError
        Naming the key, if a name is taken or malformed, or a path, digest or task is not usable.
    """
    entries = {}
    taken = reserved_names()
    for name, entry in (section or {}).items():
        key = f"catalog.{name}"
        if not NAME_PATTERN.fullmatch(str(name)):
            raise ConfigError(
                f"config: {key}: a dataset name is lower-case letters, digits and '_', starting with a letter"
            )
        if name in taken:
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
        tasks = papers_of_tasks()
        if task not in tasks:
            raise ConfigError(f"config: {key}.task={task!r} is not one of {', '.join(tasks)}")
        entries[name] = CatalogEntry(name, os.path.abspath(os.path.join(base_dir, path)), sha256, task)
    return entries


def check_dataset_lists(config: dict, entries: dict[str, CatalogEntry]) -> None:
    """Refuse a dataset name in ``datasets``, ``anygram.agk_datasets`` or ``lstm.datasets`` that is not defined.

    Parameters
    ----------
    config : dict
        The workflow config.
    entries : dict
        From :func:`parse_catalog`.

    Raises
    ------
    ConfigError
        Naming the key, the name and the names it may take.
    """
    from kernbench.catalog import BUILTIN_DATASETS, BUILTIN_TOKENISED

    tokenised = [*BUILTIN_TOKENISED, *(n for n, e in entries.items() if e.task == "classification")]
    with_tokens = "built-in dataset with tokens"
    lists = {
        "datasets": (config.get("datasets", []), [*BUILTIN_DATASETS, *entries], "built-in dataset"),
        "anygram.agk_datasets": (config.get("anygram", {}).get("agk_datasets", []), tokenised, with_tokens),
        "lstm.datasets": (config.get("lstm", {}).get("datasets", []), tokenised, with_tokens),
    }
    for key, (names, known, kind) in lists.items():
        for name in names:
            if name not in known:
                raise ConfigError(
                    f"config: {key} lists {name!r}, which is neither a {kind} nor an entry of `catalog` "
                    f"(possible here: {', '.join(known)})"
                )


def lstm_hyperparameters(config: dict) -> dict:
    """``lstm.hyperparameters`` with an entry for every catalog dataset.

    A catalog entry's ``lstm`` gives its Table 4 entry per system; a system it
    leaves out takes that of :data:`DEFAULT_LSTM_DATASET`.

    Parameters
    ----------
    config : dict
        The workflow config.

    Returns
    -------
    dict
        ``{dataset: {system: {batch_size, layers, hidden_size, learning_rate, dropout}}}``.
    """
    table = dict(config["lstm"]["hyperparameters"])
    default = table.get(DEFAULT_LSTM_DATASET, {})
    for name, entry in (config.get("catalog") or {}).items():
        table[name] = {**default, **(entry.get("lstm") or {})}
    return table


def to_environment(entries: dict[str, CatalogEntry]) -> str:
    """The value of :data:`ENV_VAR` that hands ``entries`` to the jobs."""
    return json.dumps({name: asdict(entry) for name, entry in entries.items()}, sort_keys=True)


def from_environment(environ=None) -> dict[str, CatalogEntry]:
    """The entries the workflow handed to this job (none outside the workflow).

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
        return {name: CatalogEntry(**fields) for name, fields in json.loads(value).items()}
    except (ValueError, TypeError, AttributeError) as exc:
        raise ConfigError(f"environment variable {ENV_VAR} is not a catalog the workflow wrote: {exc}") from None


def install(entries: dict[str, CatalogEntry]) -> None:
    """Make ``entries`` known to this process and to the jobs it starts.

    Replaces the catalog datasets added before: :data:`kernbench.catalog.DATASETS`,
    :data:`kernbench.catalog.TOKENISED`, :data:`kernbench.data.registry.RAW_DATASETS`
    and the environment variable :data:`ENV_VAR`.
    """
    from kernbench import catalog
    from kernbench.data import registry

    catalog.add_catalog(entries)
    registry.add_catalog(entries)
    os.environ[ENV_VAR] = to_environment(entries)
