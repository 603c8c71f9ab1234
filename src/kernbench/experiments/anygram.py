"""Any-gram kernel experiments (Kaljahi & Foster, Table 3): Gram matrices, then SVC on them.

A *kernel setting* is a system (``AGKsm``, ``AGKwest``, ``AGKwess``, ``NGTKsm``,
``NGTKwest``), the decay ``lam`` and, for the threshold systems, ``theta``.
:func:`compute_grams` builds its train x train, dev x train and test x train
matrices and the self-similarities of every split (for normalisation);
:func:`run_svm` picks ``theta``, normalisation and C on dev among the settings
it is given and scores dev and test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kernbench.errors import DataError

#: system -> (family, variant)
SYSTEMS = {
    "AGKsm": ("agk", "sm"),
    "AGKwest": ("agk", "west"),
    "AGKwess": ("agk", "wess"),
    "NGTKsm": ("ngtk", "sm"),
    "NGTKwest": ("ngtk", "west"),
}
SPLITS = ("train", "dev", "test")


def uses_theta(system: str) -> bool:
    """Whether the system has a similarity threshold to tune."""
    return SYSTEMS[system][1] == "west"


def kernel_name(system: str, lam: float, theta: float | None = None) -> str:
    """File-name key of a kernel setting, e.g. ``AGKwest_lam0.4_theta0.8``."""
    name = f"{system}_lam{float(lam):g}"
    return f"{name}_theta{float(theta):g}" if uses_theta(system) else name


def _split(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    return frame[frame["split"] == split]


def compute_grams(frame: pd.DataFrame, encoder, *, system: str, lam: float, theta=None) -> dict:
    """Gram matrices of one kernel setting against the training split.

    Parameters
    ----------
    frame : pandas.DataFrame
        Prepared dataset with ``split`` and ``tokens`` (and ``aspect_mask`` on SemEval).
    encoder : kernbench.kernels.anygram_encoding.TokenEncoder
        Token ids and vectors of the embeddings file.
    system : str
        One of :data:`SYSTEMS`.
    lam : float
        Decay factor.
    theta : float, optional
        Threshold of the ``west`` systems.

    Returns
    -------
    dict
        ``{split: (gram, diag)}``: ``gram`` is ``K(split, train)`` (symmetric for
        train) and ``diag`` the split's ``K(x, x)``.
    """
    from kernbench.kernels.anygram import anygram_diag, anygram_gram
    from kernbench.kernels.ngtk import ngtk_diag, ngtk_gram

    if system not in SYSTEMS:
        raise ValueError(f"unknown any-gram system {system!r} (one of {', '.join(SYSTEMS)})")
    family, variant = SYSTEMS[system]
    aspects = "aspect_mask" in frame
    if family == "ngtk" and not aspects:
        raise DataError("NGTK systems need the aspect terms of the SemEval datasets (`aspect_mask` column)")
    parts = {s: _split(frame, s) for s in SPLITS}
    if parts["train"].empty:
        raise DataError("the prepared dataset has no training rows")
    out = {}
    if family == "agk":
        data = {
            s: encoder.encode(
                list(p["tokens"]), variant=variant, aspect_masks=list(p["aspect_mask"]) if aspects else None
            )
            for s, p in parts.items()
        }
        vectors = None  # west/wess inputs are per-sentence vectors (aspect dimension included)
        kw = {"variant": variant, "lam": lam, "vectors": vectors, "theta": theta}
        for s in SPLITS:
            gram = anygram_gram(data[s], None if s == "train" else data["train"], **kw)
            out[s] = (gram, anygram_diag(data[s], **kw))
        return out
    ids = {s: [encoder.ids(t) for t in p["tokens"]] for s, p in parts.items()}
    masks = {s: list(p["aspect_mask"]) for s, p in parts.items()}
    vectors = np.vstack([encoder.vectors, np.zeros((len(encoder.index) - encoder.vectors.shape[0], encoder.vectors.shape[1]))])
    kw = {"variant": variant, "lam": lam, "vectors": vectors, "theta": theta}
    for s in SPLITS:
        if s == "train":
            gram = ngtk_gram(ids[s], aspect_x=masks[s], **kw)
        else:
            gram = ngtk_gram(ids[s], ids["train"], aspect_x=masks[s], aspect_y=masks["train"], **kw)
        out[s] = (gram, ngtk_diag(ids[s], aspect_x=masks[s], **kw))
    return out


@dataclass
class SvmResult:
    """Outcome of one SVC run on precomputed any-gram kernels.

    Attributes
    ----------
    rows : list of dict
        Accuracy and macro-F1 on dev and test.
    predictions : pandas.DataFrame
        Per-item predictions on dev and test.
    chosen : dict
        ``theta`` (threshold systems), ``normalize`` and ``C`` chosen on dev.
    dev_scores : dict
        Dev accuracy of every setting tried.
    confusion : dict
        ``{split: {"labels": [...], "matrix": [[...]]}}``.
    """

    rows: list
    predictions: pd.DataFrame
    chosen: dict
    dev_scores: dict
    confusion: dict


def run_svm(frame: pd.DataFrame, grams: dict, *, C_grid, normalize_options, dataset: str) -> SvmResult:
    """Choose theta, normalisation and C on dev; fit SVC on train; score dev and test.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset (labels and ids by split).
    grams : dict
        ``{theta_or_None: {split: (gram, diag)}}`` as from :func:`compute_grams`.
    C_grid : sequence of float
    normalize_options : sequence of bool
        Kernel normalisation settings to try.
    dataset : str
        Dataset name for the table rows.

    Returns
    -------
    SvmResult
    """
    from sklearn.metrics import confusion_matrix

    from kernbench.kernels.anygram import normalize_gram
    from kernbench.metrics import classification_scores
    from kernbench.models.svm import KernelSet, select_on_dev

    parts = {s: _split(frame, s) for s in SPLITS}
    for s in SPLITS:
        for theta, g in grams.items():
            if g[s][0].shape != (len(parts[s]), len(parts["train"])):
                raise DataError(
                    f"Gram matrix {s} (theta {theta}) has shape {g[s][0].shape}, "
                    f"expected {(len(parts[s]), len(parts['train']))}: stale cache?"
                )
    kernels = {}
    for theta, g in grams.items():
        for norm in normalize_options:
            mats = {}
            for s in SPLITS:
                gram, diag = g[s]
                mats[s] = normalize_gram(gram, diag, g["train"][1]) if norm else gram
            kernels[(theta, bool(norm))] = KernelSet(mats["train"], mats["dev"], mats["test"])
    y = {s: parts[s]["label"].to_numpy() for s in SPLITS}
    sel = select_on_dev(kernels, y["train"], y["dev"], C_grid)
    theta, norm = sel.key
    chosen = {"normalize": norm, "C": sel.C}
    if theta is not None:
        chosen["theta"] = float(theta)
    labels = sorted(set(y["train"]) | set(y["dev"]) | set(y["test"]), key=str)
    rows, preds, confusion = [], [], {}
    for s in ("dev", "test"):
        if parts[s].empty:
            continue
        k = getattr(kernels[sel.key], s)
        y_pred = sel.model.predict(k)
        for metric, value in classification_scores(y[s], y_pred).items():
            rows.append({"dataset": dataset, "split": s, "metric": metric, "value": value})
        preds.append(pd.DataFrame({"id": parts[s]["id"].to_numpy(), "split": s, "y_true": y[s], "y_pred": y_pred}))
        confusion[s] = {
            "labels": [str(v) for v in labels],
            "matrix": confusion_matrix(y[s], y_pred, labels=labels).tolist(),
        }
    predictions = pd.concat(preds, ignore_index=True) if preds else pd.DataFrame()
    return SvmResult(rows, predictions, chosen, sel.dev_scores, confusion)


def planned_runs(config: dict) -> list[tuple[str, str]]:
    """(dataset, system) of every any-gram / NGTK run a workflow config asks for."""
    cfg = config["anygram"]
    runs = [(d, s) for d in cfg["agk_datasets"] if d in config["datasets"] for s in cfg["agk_systems"]]
    runs += [(d, s) for d in cfg["ngtk_datasets"] if d in config["datasets"] for s in cfg["ngtk_systems"]]
    return runs


def gram_dirs(cache: str, dataset: str, system: str, cfg: dict) -> list[str]:
    """Gram directories an SVC job of (dataset, system) selects among: one per theta, or one."""
    thetas = cfg["theta"] if uses_theta(system) else [None]
    return [f"{cache}/{dataset}/{kernel_name(system, cfg['lam'], t)}" for t in thetas]


def gram_files(cache: str, dataset: str, system: str, cfg: dict) -> list[str]:
    """Every file of :func:`gram_dirs`: ``<split>.npz`` and ``<split>_diag.npz`` (see :mod:`kernbench.cache`)."""
    return [
        f"{d}/{split}{suffix}.npz"
        for d in gram_dirs(cache, dataset, system, cfg)
        for split in SPLITS
        for suffix in ("", "_diag")
    ]
