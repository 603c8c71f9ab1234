"""Sensitivity of the ordinal table to the PRP weights (choice ``ordinal.prp_weights``).

The default PRP predictions come from the main PRP job; only the alternative
weights are run, by :func:`kernbench.papers.ordinal.runner.run_system` at the few
compared levels (``uncertainty.ordinal_xi``), so the cost is one PRP scoring
and a handful of regressor fits per dataset.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.papers.ordinal.runner import run_system
from kernbench.papers.ordinal.scores import PRP_WEIGHTS
from kernbench.report.sensitivity import sensitivity_row

CHOICE = "ordinal.prp_weights"
LABELS = {
    "redistribute": "redistribute (mass-conserving, Mukras et al.)",
    "average": "average (earlier kernbench weights)",
}


def _at_level(predictions: pd.DataFrame, xi: float) -> pd.DataFrame:
    part = predictions[np.isclose(predictions["xi"].astype(float), xi)]
    return part.sort_values("id", kind="stable").reset_index(drop=True)


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
    levels = [float(x) for x in levels]
    missing = [x for x in levels if _at_level(default_predictions, x).empty]
    if missing:
        raise ValueError(f"{dataset}: the PRP run has no predictions at xi={missing}; add them to ordinal.run.levels")
    rows = []
    for alternative in (w for w in PRP_WEIGHTS if w != default):
        result = run_system(
            frame,
            dataset=dataset,
            system="PRP",
            settings={**settings, "levels": levels, "prp_weights": alternative},
            seed=seed,
        )
        for xi in levels:
            base, alt = _at_level(default_predictions, xi), _at_level(result.predictions, xi)
            if not (base["id"].to_numpy() == alt["id"].to_numpy()).all():
                raise ValueError(f"{dataset}: the PRP runs at xi={xi:g} were evaluated on different test reviews")
            rows.append(
                sensitivity_row(
                    paper="ordinal",
                    table="ordinal",
                    choice=CHOICE,
                    dataset=dataset,
                    system=f"PRP xi={xi:g}",
                    metric="mae_macro",
                    default=LABELS[default],
                    alternative=LABELS[alternative],
                    y_true=base["y_true"].to_numpy(),
                    y_default=base["y_pred"].to_numpy(),
                    y_alternative=alt["y_pred"].to_numpy(),
                    resamples=resamples,
                    seed=seed,
                )
            )
    return rows
