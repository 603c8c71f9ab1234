"""What the workflow builds for the Fisher-kernel paper under a config, and where its runs are written."""

from __future__ import annotations

from kernbench.paper import PaperTargets

#: Run files, relative to the results directory, without their suffix; ``{dataset}``, ``{system}`` and
#: ``{category}`` are the workflow's wildcards.
RUN = "runs/fisher/{dataset}/{system}/{category}"
#: The one SVM job of a dataset (every system and category): its log and benchmark path.
SVM_JOB = "fisher/svm/{dataset}"
#: The one features job of a dataset (every system).
FEATURES_JOB = "fisher/features/{dataset}"
#: The paper's dataset; its categories are ``fisher.categories``, and the sensitivity rows are measured on it.
DATASET = "reuters"

#: Open choices of Table 1 measured in ``tables/sensitivity.csv``, each with the systems it concerns.
SENSITIVITY_CHOICES = ("ap_reading", "c", "documents", "loss", "solver", "lowercase", "collapse_whitespace",
                       "max_state_length")
#: Choices that re-fit the SVM on the main run's feature caches.
SVM_CHOICES = ("loss", "solver")
#: The choices whose job builds the features of its alternatives (minutes each on Reuters); the others re-fit the
#: main features (:data:`SVM_CHOICES`) or re-read the main runs (``ap_reading``), in seconds.
FEATURE_CHOICES = tuple(c for c in SENSITIVITY_CHOICES if c not in (*SVM_CHOICES, "ap_reading"))


def sensitivity_systems(config: dict) -> dict[str, list[str]]:
    """``{choice: systems}`` of the sensitivity jobs of Table 1 (one job per choice)."""
    fisher = config["fisher"]
    systems, sens = fisher["systems"], fisher["sensitivity"]
    return {
        "ap_reading": systems,
        "c": [s for s in systems if s in ("ngram-nonuniform", "ngram-ln", "FSA-ln")],
        "documents": [s for s in systems if s in sens["documents_systems"]],
        "loss": [s for s in systems if s in sens["loss_systems"]],
        "solver": [s for s in systems if s in sens["solver_systems"]],
        "lowercase": [s for s in systems if s in sens["text_systems"]],
        "collapse_whitespace": [s for s in systems if s in sens["text_systems"]],
        "max_state_length": [s for s in systems if s.startswith("FSA-")],
    }


def datasets(config: dict) -> dict[str, list[str]]:
    """``{dataset: categories}`` the Fisher systems run on under ``config``.

    Reuters with ``fisher.categories``, then every ``catalog`` dataset of task ``ranking`` that
    ``datasets`` lists, with the categories of its entry.
    """
    out = {DATASET: list(config["fisher"]["categories"])}
    for name, entry in (config.get("catalog") or {}).items():
        if entry.get("task") == "ranking" and name in config["datasets"]:
            out[name] = list(entry["categories"])
    return out


def feature_settings(config: dict, dataset: str, keys) -> dict:
    """The ``fisher`` settings of ``keys`` that build the features of ``dataset``.

    A catalog dataset takes every document (``fisher.documents`` selects among Reuters' ModApte
    documents) and, where c is chosen by cross-validation, its own categories.
    """
    settings = {k: config["fisher"][k] for k in keys}
    if dataset != DATASET:
        settings["documents"] = "all"
        if "categories" in settings:
            settings["categories"] = datasets(config)[dataset]
    return settings


def records(config: dict, results: str) -> list[str]:
    """Run records of Table 1 and of the catalog's ranking datasets: one per (dataset, system, category)."""
    return [
        f"{results}/{RUN.format(dataset=d, system=s, category=c)}.json"
        for d, categories in datasets(config).items()
        for s in config["fisher"]["systems"]
        for c in categories
    ]


def targets(config: dict, results: str) -> PaperTargets:
    """Table 1's run records, figure and sensitivity files under ``config``.

    The planner that :attr:`kernbench.paper.Paper.targets` names; its parameters are described there.
    """
    outputs = [f"{results}/figures/fisher_average_precision.png"] if "fisher" in config["tables"] else []
    sensitivity = [f"{results}/sensitivity/fisher/fisher.{choice}.csv" for choice in sensitivity_systems(config)]
    # One features job and one SVM job per dataset make every system's runs of it.
    cost_inputs = {
        f"{results}/{RUN.format(dataset=d, system=s, category=c)}.json": {
            "features": [FEATURES_JOB.format(dataset=d)], "svm": [SVM_JOB.format(dataset=d)]
        }
        for d, categories in datasets(config).items()
        for s in config["fisher"]["systems"]
        for c in categories
    }
    return PaperTargets(records=records(config, results), outputs=outputs, sensitivity=sensitivity,
                        cost_inputs=cost_inputs)
