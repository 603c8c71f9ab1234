"""What the workflow builds for the any-gram paper under a config, and where its runs are written."""

from __future__ import annotations

import json

from kernbench.paper import PaperTargets

#: Run files, relative to the results directory, without their suffix (``.json`` record,
#: ``.predictions.parquet``, ...); ``{dataset}`` etc. are the workflow's wildcards.
KERNEL_RUN = "runs/anygram/{dataset}/kernels/{system}"
LSTM_RUN = "runs/anygram/{dataset}/lstm/{system}_seed{seed}"
LSTM_SENSITIVITY = "sensitivity/anygram/lstm.{choice}"
LSTM_SENSITIVITY_RUN = LSTM_SENSITIVITY + "/{dataset}/{system}_seed{seed}"
#: An LSTM job trains every system and seed of its dataset: its log and benchmark path.
LSTM_JOB = "runs/anygram/{dataset}/lstm"
#: A sensitivity job retrains every system and seed of its choice and dataset.
LSTM_SENSITIVITY_JOB = LSTM_SENSITIVITY + "/{dataset}/lstm"
#: The SVC job of a dataset and a group of kernel systems (``anygram.<group>_systems``): its log and benchmark path.
SVM_JOB = "runs/anygram/{dataset}/kernels/{group}"
#: Gram matrices of the kernel settings, one directory each.
GRAM_CACHE = "cache/anygram"
#: The job that computes a threshold system's settings over the theta grid: its log and benchmark path.
THETA_GRAM_JOB = GRAM_CACHE + "/{dataset}/{system}"

#: LSTM settings the paper leaves open, each retrained on ``lstm.sensitivity_datasets`` with its alternative.
LSTM_CHOICES = ("trainable_embeddings", "bucket_batches")


def lstm_alternative(lstm_config: dict, choice: str):
    """The alternative value of an LSTM choice: the other embedding setting, or ``lstm.sensitivity_bucket_batches``."""
    if choice == "trainable_embeddings":
        return not lstm_config["trainable_embeddings"]
    if choice == "bucket_batches":
        return lstm_config["sensitivity_bucket_batches"]
    raise ValueError(f"unknown LSTM choice {choice!r} (one of {', '.join(LSTM_CHOICES)})")


def lstm_choices(config: dict) -> list[str]:
    """The LSTM choices with an alternative that differs from the config's value."""
    lstm = config["lstm"]
    return [c for c in LSTM_CHOICES if lstm_alternative(lstm, c) != lstm[c]]


def lstm_sensitivity_datasets(config: dict) -> list[str]:
    """Datasets whose LSTMs are retrained with the other embedding setting (``lstm.sensitivity_datasets``)."""
    lstm = config["lstm"]
    return [d for d in lstm["sensitivity_datasets"] if d in lstm["datasets"] and d in config["datasets"]]


def targets(config: dict, results: str) -> PaperTargets:
    """The any-gram paper's run records, figures and sensitivity files under ``config``.

    Parameters
    ----------
    config : dict
        The workflow config.
    results : str
        The results directory.

    Returns
    -------
    kernbench.paper.PaperTargets
    """
    from kernbench.papers.anygram.experiment import gram_dirs, planned_runs
    from kernbench.papers.anygram.lstm import planned_runs as lstm_runs
    from kernbench.papers.anygram.sensitivity import sensitivity_jobs

    records = [f"{results}/{KERNEL_RUN.format(dataset=d, system=s)}.json" for d, s in planned_runs(config)]
    records += [f"{results}/{LSTM_RUN.format(dataset=d, system=s, seed=seed)}.json" for d, s, seed in lstm_runs(config)]
    # An SVC run reads the Gram matrices of its kernel settings (one per theta), made by jobs of their own
    # (a threshold system's in one job, when they are not tiled); an LSTM run shares its job with the other
    # systems and seeds of its dataset.
    cost_inputs = {
        f"{results}/{LSTM_RUN.format(dataset=d, system=s, seed=seed)}.json": {"lstm": [LSTM_JOB.format(dataset=d)]}
        for d, s, seed in lstm_runs(config)
    }
    group_of = {s: group for group, names in svm_groups(config).items() for s in names}
    for dataset, system in planned_runs(config):
        if system in group_of:
            cost_inputs[f"{results}/{KERNEL_RUN.format(dataset=dataset, system=system)}.json"] = {
                "job": [SVM_JOB.format(dataset=dataset, group=group_of[system])],
                "gram": [*gram_dirs(GRAM_CACHE, dataset, system, config["anygram"]),
                         THETA_GRAM_JOB.format(dataset=dataset, system=system)],
            }
    outputs = []
    if "anygram" in config["tables"]:  # the figures read the table
        outputs = [
            f"{results}/benchmarks/anygram.csv",
            f"{results}/figures/anygram_accuracy.png",
            f"{results}/figures/anygram_throughput.png",
        ]
    # One file of rows per LSTM choice, over every dataset retrained for it.
    sensitivity = [
        f"{results}/{LSTM_SENSITIVITY.format(choice=c)}.csv"
        for c in lstm_choices(config)
        if lstm_sensitivity_datasets(config)
    ]
    sensitivity += [f"{results}/sensitivity/anygram/{choice}.csv" for choice, *_ in sensitivity_jobs(config).values()]
    return PaperTargets(records=records, outputs=outputs, sensitivity=sensitivity, cost_inputs=cost_inputs)


def svm_systems(config: dict) -> list[str]:
    """The kernel systems trained by SVC on Gram matrices: all of them, but those with an explicit feature map
    when ``anygram.training`` is ``primal``."""
    from kernbench.papers.anygram import systems

    primal = config["anygram"]["training"] == "primal"
    return systems.names(lambda system: not (primal and system.primal is not None))


def svm_groups(config: dict) -> dict[str, list[str]]:
    """``{group: systems}``: the systems of each config list ``anygram.<group>_systems`` that SVC trains on Gram
    matrices (:func:`svm_systems`), groups without one left out; one SVC job per dataset of the group runs them."""
    from kernbench.papers.anygram import systems

    svm = set(svm_systems(config))
    groups = {g: [s for s in config["anygram"][f"{g}_systems"] if s in svm] for g in systems.GROUPS}
    return {g: names for g, names in groups.items() if names}


def benchmark_settings(config: dict, dp_sentences: int) -> str:
    """JSON settings of the throughput benchmark (``anygram.benchmark``, λ, seed), timing the DP on ``dp_sentences``
    sentences (0: all)."""
    anygram = config["anygram"]
    return json.dumps(
        {**anygram["benchmark"], "lam": anygram["lam"], "seed": config["seed"], "dp_sentences": dp_sentences},
        sort_keys=True,
    )


def cased_sm_flag(system: str, anygram: dict) -> str:
    """``--cased-sm`` for a Gram job of ``system`` when it sees the casing of string match and the config keeps
    it (``anygram.lowercase_sm`` false), else ``""``."""
    from kernbench.papers.anygram import systems

    return "" if anygram["lowercase_sm"] or not systems.get(system).casing else "--cased-sm"


def encoding_json(system: str, anygram: dict) -> str:
    """The encoding keys the kernel of ``system`` depends on (contractions, identical tokens, the aspect bit), as
    the JSON of a Gram job's ``--encoding``."""
    from kernbench.papers.anygram.systems import kernel_encoding

    return json.dumps(kernel_encoding(system, anygram), sort_keys=True)


def theta_gram_dirs(cache: str, anygram: dict) -> list[str]:
    """The Gram directories of a threshold system over the theta grid, with ``{dataset}`` and ``{system}`` left as
    wildcards: the outputs of the one job that computes them (``anygram_gram_theta``).

    They are :func:`kernbench.papers.anygram.experiment.gram_dirs` of each threshold system, which names them
    through :class:`KernelSetting`; every threshold system must give the same names but for its own.

    Raises
    ------
    ValueError
        If the threshold systems differ in their parameters, so that no one pattern names their directories.
    """
    from kernbench.papers.anygram import systems
    from kernbench.papers.anygram.experiment import gram_dirs

    dirs = {s: gram_dirs(cache, "{dataset}", s, anygram) for s in systems.names(lambda s: s.uses_theta)}
    first = next(iter(dirs))
    pattern = [d.replace(f"{{dataset}}/{first}_", "{dataset}/{system}_") for d in dirs[first]]
    for system, names in dirs.items():
        if [d.replace("{system}", system) for d in pattern] != names:
            raise ValueError(
                f"threshold systems {first} and {system} differ in their parameters: no one theta job names both"
            )
    return pattern
