"""The datasets a run knows, as one object: the built-in ones and those of the config's ``catalog``.

The workflow builds a :class:`Catalog` once from its config
(:meth:`Catalog.from_config`) and hands the catalog entries to its jobs in the
environment variable :data:`kernbench.catalog_config.ENV_VAR`
(:meth:`Catalog.to_environment`); a job's command gets the same object from
:func:`catalog`, which reads that variable when called. Importing this module
reads nothing and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from kernbench.catalog_config import CatalogEntry, from_environment, parse_catalog, to_environment
from kernbench.data.registry import BUILTIN_DATASETS, DatasetSpec, catalog_dataset

__all__ = ["BASELINE_SYSTEMS", "BUILTIN_DATASETS", "Catalog", "DatasetSpec", "catalog", "papers_of_tasks"]

#: Baseline systems run on each task.
BASELINE_SYSTEMS = {
    "classification": ("Triv", "BoW-TFIDF"),
    "ranking": ("Triv", "BoW-TFIDF"),
    "ordinal": ("Triv", "Triv-3stars", "BoW-TFIDF"),
}


def papers_of_tasks(papers: Mapping) -> dict[str, str]:
    """``{task: paper}``: the paper whose systems a catalog dataset of each task runs.

    Parameters
    ----------
    papers : mapping
        ``{name: kernbench.paper.Paper}`` (the workflow passes :data:`kernbench.papers.PAPERS`);
        each paper's ``catalog_tasks`` name the tasks it takes.

    Raises
    ------
    ValueError
        If two papers take the same task.
    """
    out: dict[str, str] = {}
    for name, paper in papers.items():
        for task in paper.catalog_tasks:
            if task in out:
                raise ValueError(f"papers {out[task]!r} and {name!r} both take catalog datasets of task {task!r}")
            out[task] = name
    return out


def reserved_names() -> frozenset[str]:
    """Names a catalog entry cannot take: the built-in datasets and their categories (rows of the same tables)."""
    return frozenset(BUILTIN_DATASETS) | frozenset(c for spec in BUILTIN_DATASETS.values() for c in spec.categories)


@dataclass(frozen=True)
class Catalog(Mapping):
    """Every dataset by name: the built-in ones, then the catalog entries, each a :class:`DatasetSpec`.

    Attributes
    ----------
    entries : dict
        ``{name: kernbench.catalog_config.CatalogEntry}``: the config's own datasets.
    """

    entries: dict[str, CatalogEntry] = field(default_factory=dict)

    @classmethod
    def from_config(cls, section: dict | None, *, base_dir, papers_of_tasks: Mapping[str, str]) -> Catalog:
        """The catalog of a workflow config's ``catalog`` section, checked.

        Parameters
        ----------
        section : dict or None
            The section (:func:`kernbench.catalog_config.parse_catalog`).
        base_dir : path-like
            Directory a relative ``path`` is relative to.
        papers_of_tasks : mapping
            ``{task: paper}`` (:func:`papers_of_tasks`).

        Raises
        ------
        kernbench.config_check.ConfigError
            Naming the key of an entry that cannot be used.
        """
        entries = parse_catalog(section, base_dir=base_dir, papers_of_tasks=papers_of_tasks, reserved=reserved_names())
        return cls(entries)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Catalog:
        """The catalog the workflow handed to this job (the built-in datasets alone outside a workflow)."""
        return cls(from_environment(environ))

    def to_environment(self) -> str:
        """The value of :data:`kernbench.catalog_config.ENV_VAR` that hands this catalog to the jobs."""
        return to_environment(self.entries)

    @cached_property
    def _specs(self) -> dict[str, DatasetSpec]:
        return {**BUILTIN_DATASETS, **{name: catalog_dataset(entry) for name, entry in self.entries.items()}}

    def __getitem__(self, name: str) -> DatasetSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise KeyError(f"unknown dataset {name!r}; known: {', '.join(self._specs)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def names(
        self,
        *,
        task: str | None = None,
        tokenised: bool | None = None,
        builtin: bool | None = None,
        aspect_terms: bool | None = None,
    ) -> list[str]:
        """The dataset names, in catalog order, that have every property given.

        Parameters
        ----------
        task : str, optional
            Only datasets of this task.
        tokenised, builtin, aspect_terms : bool, optional
            Only datasets whose :class:`DatasetSpec` attribute of that name has this value.
        """
        wanted = {"task": task, "tokenised": tokenised, "builtin": builtin, "aspect_terms": aspect_terms}
        wanted = {k: v for k, v in wanted.items() if v is not None}
        return [n for n, spec in self._specs.items() if all(getattr(spec, k) == v for k, v in wanted.items())]

    @property
    def tokenised(self) -> tuple[str, ...]:
        """Datasets with ``tokens`` (the any-gram kernels and LSTMs run on these)."""
        return tuple(self.names(tokenised=True))


def catalog(environ: Mapping[str, str] | None = None) -> Catalog:
    """The datasets this process knows: the built-in ones and the catalog the workflow handed to its job.

    Reads the environment variable :data:`kernbench.catalog_config.ENV_VAR` when called.

    Parameters
    ----------
    environ : mapping, optional
        Defaults to ``os.environ``.

    Returns
    -------
    Catalog
    """
    return Catalog.from_environment(environ)
