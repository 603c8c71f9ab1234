"""What the generic layers (tables, paired comparisons, results summary, report, CLI) need to know of a paper.

Each paper package defines one :class:`Paper`; :data:`kernbench.papers.PAPERS`
collects them. Functions are named as ``"module:function"`` and imported only
when called, so that reading the registry stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.resources
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Paper:
    """One re-run paper, as the generic layers see it.

    Attributes
    ----------
    name : str
        The paper's key: its table (``tables/<name>.csv``), the ``paper`` field of its run records
        and its MLflow experiment.
    caption : str
        Heading of its table's report page.
    compared_metrics : tuple of str
        Metrics of ``significance.csv`` (keys of :data:`kernbench.report.uncertainty.METRICS`).
    headline_metric : str or None
        The metric compared with the paper in the gap section; None if the table has no paper values.
    mean_over_datasets : bool
        Whether the paper's headline is the mean over its datasets (Reuters categories), per system.
    level_baselines : tuple of str
        For a table with reduction levels: the systems every method is compared with at each level
        (empty: every pair of systems is compared).
    summary : str
        ``"module:function"`` giving the paper's lines of ``results.md``:
        ``function(tables_dir, *, levels) -> list[str]``.
    figures : dict
        ``{kind: "module:function"}`` of its report figures, each ``function(input, out, dataset=None)``.
    command_modules : tuple of str
        Modules adding its subcommands through ``register(subparsers)``.
    extra_tables : dict
        ``{table: caption}`` of further tables it writes (claims, ...).
    targets : str
        ``"module:function"`` giving what the workflow builds for it:
        ``function(config, results) -> PaperTargets``, with ``config`` the workflow config
        and ``results`` the results directory that the returned paths start with.
    catalog_tasks : tuple of str
        Tasks of the config's ``catalog`` datasets (datasets of your own) that this
        paper's systems run; their runs are filed under the paper.
    noise_choices : tuple of str
        Choices of the sensitivity table that are sources of selection noise, not readings of
        the paper (a seed of a split the paper never published): the gap section shows the
        spread of their values as a noise band beside each gap, never as closing it.
    descriptions : dict
        ``{table: text}``: what its table (and each extra table) holds, for the table's report page;
        reStructuredText, rendered as a Jinja template with the workflow ``config``.
    rules : tuple of str
        Its Snakemake rule files, each ``"package:file"`` (``"kernbench.papers.fisher:fisher.smk"``), a
        file of its package; the Snakefile includes them (:func:`package_file` finds them).
    tracking_rank : int
        Place of its MLflow job in the chain of the papers' jobs (lowest first): the papers whose runs
        usually finish first come first, so that only the last paper's logging is left at a run's end.
    config_keys : tuple of str
        The top-level keys of the workflow config that are its sections (``anygram``, ``lstm``).
    config_schema : str
        ``"package:file"``: the JSON schema of its sections, a file of the package
        (``"kernbench.papers.fisher:config.schema.yaml"``): an object schema whose ``properties`` are
        ``config_keys``, with its own ``definitions``. :mod:`kernbench.config_schema` composes it with the
        workflow's schema and validates the config against it.
    config_names : str
        ``"module:function"`` giving the names each of its config keys may hold, checked at start-up:
        ``function(catalog) -> {key: (valid names, what they are)}``, with ``catalog`` the workflow's
        :class:`kernbench.catalog.Catalog` and ``key`` dotted (``"fisher.categories"``); for a mapping,
        its keys are checked.
    """

    name: str
    caption: str
    compared_metrics: tuple[str, ...]
    headline_metric: str | None
    summary: str
    figures: dict = field(default_factory=dict)
    command_modules: tuple[str, ...] = ()
    mean_over_datasets: bool = False
    level_baselines: tuple[str, ...] = ()
    extra_tables: dict = field(default_factory=dict)
    targets: str = ""
    catalog_tasks: tuple[str, ...] = ()
    noise_choices: tuple[str, ...] = ()
    descriptions: dict = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    tracking_rank: int = 0
    config_keys: tuple[str, ...] = ()
    config_schema: str = ""
    config_names: str = ""


@dataclass(frozen=True)
class PaperTargets:
    """The files the workflow builds for one paper under a config (its run planning).

    Attributes
    ----------
    records : list of str
        Run records behind its table (``tables/<paper>.csv``).
    outputs : list of str
        Further final outputs: figures, claim tables, benchmark tables.
    sensitivity : list of str
        Per-choice CSV files of ``tables/sensitivity.csv``.
    md_subset : dict
        Row filter of its markdown table, ``{column: [values]}`` (the CSV keeps every row).
    cost_inputs : dict
        ``{record: {part: [job paths]}}``: for a run whose work is done by jobs other than one of its own
        (cached Gram matrices, one job for several runs), the jobs whose measured cost its MLflow run
        carries as ``cost.<part>.*``. A job path is its benchmark file's path under
        ``benchmarks/jobs/<rule>/`` without ``.tsv``; a job counts when its path is one of them or lies
        under one.
    """

    records: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    sensitivity: list[str] = field(default_factory=list)
    md_subset: dict = field(default_factory=dict)
    cost_inputs: dict = field(default_factory=dict)


def resolve(reference: str):
    """Import and return the object named ``"module:attribute"``."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def package_file(spec: str, what: str) -> Path:
    """The file a paper names as ``"package:file"`` (its config-schema fragment, its rule files).

    Parameters
    ----------
    spec : str
        ``"package:file"``: a file of an importable package (``"kernbench.papers.fisher:fisher.smk"``).
    what : str
        Who names it, for the error (``"paper fisher: rules"``).

    Returns
    -------
    pathlib.Path
        The file's absolute path.

    Raises
    ------
    kernbench.config_check.ConfigError
        If ``spec`` is not of that form, or names no package or no file of the package.
    """
    from kernbench.config_check import ConfigError

    package, _, name = spec.partition(":")
    if not package or not name:
        raise ConfigError(f"{what}={spec!r} is not 'package:file'")
    try:
        path = Path(str(importlib.resources.files(package) / name)).resolve()
    except ModuleNotFoundError as exc:
        raise ConfigError(f"{what}={spec!r}: no package {package!r}") from exc
    if not path.is_file():
        raise ConfigError(f"{what}={spec!r}: no file {path}")
    return path
