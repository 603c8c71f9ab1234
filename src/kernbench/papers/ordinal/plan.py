"""What the workflow builds for the ordinal paper under a config, and where its runs are written."""

from __future__ import annotations

from kernbench.paper import PaperTargets
from kernbench.papers.ordinal import SLUGS

#: Run files, relative to the results directory, without their suffix; ``{dataset}`` and
#: ``{slug}`` (a value of :data:`kernbench.papers.ordinal.SLUGS`) are the workflow's wildcards.
RUN = "runs/ordinal/{dataset}/featsel/{slug}"
#: One job runs every system of a dataset: its log and benchmark path.
JOB = "runs/ordinal/{dataset}/featsel"
#: Open choices with sensitivity rows, each written to ``sensitivity/ordinal/ordinal.<choice>.csv``.
SENSITIVITY_CHOICES = ("prp_weights", "nc_epsilon")


def datasets(config: dict) -> list[str]:
    """The ordinal datasets the config runs (``ordinal.datasets`` that are also in ``datasets``).

    Built-in or ``catalog`` datasets of task ``ordinal``: the workflow checks the names at start-up.
    """
    return [d for d in config["ordinal"]["datasets"] if d in config["datasets"]]


def records(config: dict, results: str, dataset: str | None = None) -> list[str]:
    """Run records of Figure 1: one per (dataset, system); those of one ``dataset`` if given."""
    names = datasets(config) if dataset is None else [dataset]
    return [f"{results}/{RUN.format(dataset=d, slug=slug)}.json" for d in names for slug in SLUGS.values()]


def targets(config: dict, results: str) -> PaperTargets:
    """Figure 1's run records, figures, claims table and sensitivity file under ``config``.

    The planner that :attr:`kernbench.paper.Paper.targets` names; its parameters are described there.
    """
    names = datasets(config)
    if not names:
        return PaperTargets()
    outputs, sensitivity = [], []
    if "ordinal" in config["tables"]:
        outputs = [f"{results}/figures/ordinal_{d}.png" for d in names]
        outputs += [f"{results}/tables/ordinal_claims.{ext}" for ext in ("csv", "md")]
        sensitivity = [f"{results}/sensitivity/ordinal/ordinal.{choice}.csv" for choice in SENSITIVITY_CHOICES]
    # The runs of a dataset share its one job.
    cost_inputs = {
        record: {"job": [JOB.format(dataset=dataset)]} for dataset in names for record in records(config, results, dataset)
    }
    return PaperTargets(
        records=records(config, results),
        outputs=outputs,
        sensitivity=sensitivity,
        md_subset={"xi": config["ordinal"]["table_xi"]},
        cost_inputs=cost_inputs,
    )
