"""What the workflow builds for the Fisher-kernel paper under a config, and where its runs are written."""

from __future__ import annotations

from kernbench.paper import PaperTargets

#: Run files, relative to the results directory, without their suffix; ``{system}`` and
#: ``{category}`` are the workflow's wildcards.
RUN = "runs/fisher/reuters/{system}/{category}"

#: Open choices of Table 1 measured in ``tables/sensitivity.csv``, each with the systems it concerns.
SENSITIVITY_CHOICES = ("ap_reading", "c", "documents", "loss", "solver", "lowercase", "collapse_whitespace",
                       "max_state_length")


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


def records(config: dict, results: str) -> list[str]:
    """Run records of Table 1: one per (system, category)."""
    fisher = config["fisher"]
    return [
        f"{results}/{RUN.format(system=s, category=c)}.json" for s in fisher["systems"] for c in fisher["categories"]
    ]


def targets(config: dict, results: str) -> PaperTargets:
    """Table 1's run records, figure and sensitivity files under ``config``.

    The planner that :attr:`kernbench.paper.Paper.targets` names; its parameters are described there.
    """
    outputs = [f"{results}/figures/fisher_average_precision.png"] if "fisher" in config["tables"] else []
    sensitivity = [f"{results}/sensitivity/fisher/fisher.{choice}.csv" for choice in sensitivity_systems(config)]
    return PaperTargets(records=records(config, results), outputs=outputs, sensitivity=sensitivity)
