"""Sensitivity of the ordinal table to its open choices (``ordinal.prp_weights``, ``ordinal.nc_epsilon``).

The default predictions come from the main run of the system concerned; only
the alternative is run, by :func:`kernbench.papers.ordinal.runner.run_system`,
evaluated on test at the few compared levels (``uncertainty.ordinal_xi``). A
tuned method (``RR(NC*IDF)``) still chooses ``a`` on dev over every level of
the main run, as its main run does, so the row compares the two settings under
one protocol.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.papers.ordinal.runner import run_system
from kernbench.papers.ordinal.scores import PRP_WEIGHTS
from kernbench.report.sensitivity import sensitivity_row

CHOICE = "ordinal.prp_weights"
NC_EPSILON_CHOICE = "ordinal.nc_epsilon"
LABELS = {
    "redistribute": "redistribute (mass-conserving, Mukras et al.)",
    "average": "average (earlier kernbench weights)",
}
#: The system whose main run and alternative each choice compares.
SYSTEM_OF_CHOICE = {CHOICE: "PRP", NC_EPSILON_CHOICE: "RR(NC*IDF)"}


def _at_level(predictions: pd.DataFrame, xi: float) -> pd.DataFrame:
    part = predictions[np.isclose(predictions["xi"].astype(float), xi)]
    return part.sort_values("id", kind="stable").reset_index(drop=True)


def nc_epsilon_label(value: float, settings: dict) -> str:
    """How a value of ``nc_epsilon`` reads in the sensitivity table."""
    if value == 0:
        return "NC + 0 (Eq. 2 as printed)"
    if value == settings["epsilon"]:
        return f"NC + {value:g} (the epsilon of Eq. 1)"
    return f"NC + {value:g}"


def nc_epsilon_alternatives(settings: dict) -> list[float]:
    """The other readings of Eq. 2's smoothing: 0 (as printed) and Eq. 1's ``epsilon``, minus the default."""
    default = float(settings["nc_epsilon"])
    return [v for v in dict.fromkeys((0.0, float(settings["epsilon"]))) if v != default]


def _rows(frame, *, dataset, choice, default_predictions, alternatives, levels, resamples, seed):
    """Rows of ``choice``: for each ``(default label, label, alternative settings)``, one per level."""
    system = SYSTEM_OF_CHOICE[choice]
    levels = [float(x) for x in levels]
    missing = [x for x in levels if _at_level(default_predictions, x).empty]
    if missing:
        raise ValueError(
            f"{dataset}: the {system} run has no predictions at xi={missing}; add them to ordinal.run.levels"
        )
    rows = []
    for default_label, label, alternative in alternatives:
        result = run_system(frame, dataset=dataset, system=system, settings=alternative, seed=seed, test_levels=levels)
        for xi in levels:
            base, alt = _at_level(default_predictions, xi), _at_level(result.predictions, xi)
            if not (base["id"].to_numpy() == alt["id"].to_numpy()).all():
                raise ValueError(f"{dataset}: the {system} runs at xi={xi:g} were evaluated on different test reviews")
            rows.append(
                sensitivity_row(
                    paper="ordinal",
                    table="ordinal",
                    choice=choice,
                    dataset=dataset,
                    system=f"{system} xi={xi:g}",
                    metric="mae_macro",
                    default=default_label,
                    alternative=label,
                    y_true=base["y_true"].to_numpy(),
                    y_default=base["y_pred"].to_numpy(),
                    y_alternative=alt["y_pred"].to_numpy(),
                    resamples=resamples,
                    seed=seed,
                )
            )
    return rows


def prp_weights_rows(
    frame: pd.DataFrame,
    *,
    dataset: str,
    default_predictions: pd.DataFrame,
    settings: dict,
    levels,
    resamples: int,
    seed: int,
) -> list[dict]:
    """Sensitivity rows of PRP under every other weighting than ``settings["prp_weights"]``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset (as for :func:`~kernbench.papers.ordinal.runner.run_system`).
    dataset : str
        Its name.
    default_predictions : pandas.DataFrame
        ``id, xi, y_true, y_pred`` of the main PRP run (default weights).
    settings : dict
        The ``ordinal.run`` config block of that run.
    levels : sequence of float
        Reduction levels compared (each must be one of the main run's levels).
    resamples, seed : int
        Bootstrap resamples and seed; ``seed`` is also the solver seed.

    Returns
    -------
    list of dict
        One row per (alternative, level); the level is named in ``system`` (``PRP xi=0.1``).

    Raises
    ------
    ValueError
        If a level is missing from the default predictions.
    """
    default = settings["prp_weights"]
    alternatives = [
        (LABELS[default], LABELS[w], {**settings, "prp_weights": w}) for w in PRP_WEIGHTS if w != default
    ]
    return _rows(
        frame, dataset=dataset, choice=CHOICE, default_predictions=default_predictions,
        alternatives=alternatives, levels=levels, resamples=resamples, seed=seed,
    )


def nc_epsilon_rows(
    frame: pd.DataFrame,
    *,
    dataset: str,
    default_predictions: pd.DataFrame,
    settings: dict,
    levels,
    resamples: int,
    seed: int,
) -> list[dict]:
    """Sensitivity rows of ``RR(NC*IDF)`` under the other readings of Eq. 2's smoothing.

    The readings are those of :func:`nc_epsilon_alternatives`.

    Parameters are those of :func:`prp_weights_rows`, with ``default_predictions`` from the main
    ``RR(NC*IDF)`` run. The alternative chooses its own ``a`` on dev over every level of
    ``settings["levels"]`` (Eq. 2 with another smoothing is another score).

    Returns
    -------
    list of dict
        One row per (alternative, level); ``system`` is ``RR(NC*IDF) xi=<level>``.

    Raises
    ------
    ValueError
        If a level is missing from the default predictions.
    """
    default = nc_epsilon_label(float(settings["nc_epsilon"]), settings)
    alternatives = [
        (default, nc_epsilon_label(v, settings), {**settings, "nc_epsilon": v})
        for v in nc_epsilon_alternatives(settings)
    ]
    return _rows(
        frame, dataset=dataset, choice=NC_EPSILON_CHOICE, default_predictions=default_predictions,
        alternatives=alternatives, levels=levels, resamples=resamples, seed=seed,
    )
