"""Any-gram kernel experiments (Kaljahi & Foster, Table 3): Gram matrices, then SVC on them.

A *kernel setting* is a system of :data:`kernbench.papers.anygram.systems.SYSTEMS` and the values of
its parameters (the decay ``lam`` and, for the threshold systems, ``theta``).
:func:`compute_grams` builds its train x train, dev x train and test x train
matrices and the self-similarities of every split (for normalisation) with the
functions the system's registry entry names;
:func:`run_svm` picks ``theta``, normalisation and C on dev among the settings
it is given and scores dev and test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from kernbench.data import SPLITS
from kernbench.errors import DataError
from kernbench.kernels import WESS_ROW_BLOCK
from kernbench.papers.anygram import systems
from kernbench.papers.anygram.kernel_setting import KernelSetting
from kernbench.progress import progress


def _split(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    return frame[frame["split"] == split]


class _KernelSetting:
    """One kernel setting bound to a prepared dataset: its inputs per split and its system's functions."""

    def __init__(self, frame: pd.DataFrame, encoder, *, system: str, lam, theta=None, lowercase_sm: bool = True):
        entry = systems.get(system)
        if "split_contractions" in entry.encoding and encoder.encoding.split_contractions:
            from kernbench.kernels.anygram_encoding import split_frame

            frame = split_frame(frame)
        parts = {s: _split(frame, s) for s in SPLITS}
        if parts["train"].empty:
            raise DataError("the prepared dataset has no training rows")
        self.system = entry
        self.inputs = systems.function(entry.inputs)(
            parts, encoder, system=entry, lam=lam, theta=theta, lowercase_sm=lowercase_sm
        )
        self.gram, self._diag = systems.function(entry.gram), systems.function(entry.diag)

    @property
    def data(self) -> dict:
        """``{split: items}`` as the system's functions take them."""
        return self.inputs.data

    def _per_item(self, split: str, sl: slice = slice(None), side: str = "x") -> dict:
        """The per-item keyword arguments of a split's items ``sl``, named for the ``X`` or the ``Y`` side."""
        values = self.inputs.per_item.get(split, {})
        rename = self.inputs.y_keywords if side == "y" else {}
        return {rename.get(k, k): v[sl] for k, v in values.items()}

    def rows(self, split: str, start: int = 0, stop: int | None = None) -> np.ndarray:
        """``K(split[start:stop], train)`` computed as one X-against-Y block."""
        sl = slice(start, stop)
        extra = {**self._per_item(split, sl), **self._per_item("train", side="y")}
        return self.gram(self.data[split][sl], self.data["train"], **extra, **self.inputs.kw)

    def train_gram(self) -> np.ndarray:
        """``K(train, train)``, each pair once, exactly symmetric."""
        return self.gram(self.data["train"], **self._per_item("train"), **self.inputs.kw)

    def diag(self, split: str) -> np.ndarray:
        """``K(x, x)`` of every sentence of the split."""
        return self._diag(self.data[split], **self._per_item(split), **self.inputs.kw)


def compute_grams(frame: pd.DataFrame, encoder, *, system: str, lam: float, theta=None, lowercase_sm: bool = True) -> dict:
    """Gram matrices of one kernel setting against the training split.

    Parameters
    ----------
    frame : pandas.DataFrame
        Prepared dataset with ``split`` and ``tokens`` (and ``aspect_mask`` on SemEval).
    encoder : kernbench.kernels.anygram_encoding.TokenEncoder
        Token ids and vectors of the embeddings file.
    system : str
        A key of :data:`kernbench.papers.anygram.systems.SYSTEMS`.
    lam : float or None
        Decay factor (systems with the parameter ``lam``).
    theta : float, optional
        Threshold of the threshold systems.
    lowercase_sm : bool, optional
        Systems that see the casing (``casing`` in the registry): match tokens lower-cased (default) or as written.

    Returns
    -------
    dict
        ``{split: (gram, diag)}``: ``gram`` is ``K(split, train)`` (symmetric for
        train) and ``diag`` the split's ``K(x, x)``.
    """
    setting = _KernelSetting(frame, encoder, system=system, lam=lam, theta=theta, lowercase_sm=lowercase_sm)
    return {
        s: (setting.train_gram() if s == "train" else setting.rows(s), setting.diag(s))
        for s in progress(SPLITS, desc=f"{system} Gram matrices", unit="split")
    }


def check_tile_rows(tile_rows: int) -> None:
    """Refuse a tile size that would not repeat the one-block computation exactly.

    Parameters
    ----------
    tile_rows : int
        Rows per tile; a positive multiple of the wess GEMM's row block
        (:data:`kernbench.kernels.WESS_ROW_BLOCK`).
    """

    if tile_rows <= 0 or tile_rows % WESS_ROW_BLOCK:
        raise ValueError(
            f"anygram.tile_rows must be a positive multiple of {WESS_ROW_BLOCK} (the row block of the wess GEMM), "
            f"got {tile_rows}"
        )


def tile_bounds(n_rows: int, tile_rows: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each row tile of an ``n_rows``-row Gram matrix (at least one tile).

    Parameters
    ----------
    n_rows : int
    tile_rows : int
        Rows per tile (see :func:`check_tile_rows`).

    Returns
    -------
    list of tuple of int
    """
    check_tile_rows(tile_rows)
    return [(a, min(a + tile_rows, n_rows)) for a in range(0, max(n_rows, 1), tile_rows)]


def compute_gram_tile(frame, encoder, *, system, lam, theta=None, split, start, stop, lowercase_sm=True) -> np.ndarray:
    """Rows ``start:stop`` of ``K(split, train)``: one tile of a Gram matrix computed as tiles.

    Assembled in order, the tiles of a split equal, bit for bit, the same
    matrix computed as one X-against-Y block (tiles start at multiples of
    :data:`kernbench.kernels.WESS_ROW_BLOCK`, so every product is repeated as it is). For ``train``
    that block is the X-against-Y form of the symmetric matrix that
    :func:`compute_grams` builds, equal to it up to round-off.

    Parameters
    ----------
    frame, encoder, system, lam, theta, lowercase_sm
        As in :func:`compute_grams`.
    split : {"train", "dev", "test"}
    start, stop : int
        Row range of the tile.

    Returns
    -------
    ndarray of shape (stop - start, n_train)
    """
    setting = _KernelSetting(frame, encoder, system=system, lam=lam, theta=theta, lowercase_sm=lowercase_sm)
    return setting.rows(split, start, stop)


def compute_diags(frame, encoder, *, system, lam, theta=None, lowercase_sm=True) -> dict:
    """``{split: K(x, x)}`` of one kernel setting (the diagonal a tiled Gram job does not carry)."""
    setting = _KernelSetting(frame, encoder, system=system, lam=lam, theta=theta, lowercase_sm=lowercase_sm)
    return {s: setting.diag(s) for s in SPLITS}


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


def kernel_scale(train_diag) -> float:
    """Mean self-similarity of the training items: the unit an unnormalised kernel is divided by.

    Dividing ``K`` by a constant ``s`` while keeping C is the SVM with C / s on
    the raw ``K``: the C grid then spans the same margins for every kernel
    (normalised kernels already have unit self-similarity). Raw ``wess`` / ``west``
    self-similarities run into the hundreds, and libsvm needs millions of
    iterations at C >= 1 on such a matrix.

    Parameters
    ----------
    train_diag : array-like of shape (n_train,)
        ``K(x, x)`` of the training items.

    Returns
    -------
    float
        The mean, or 1.0 when it is not positive (no or only empty items).
    """
    mean = float(np.mean(train_diag)) if np.size(train_diag) else 0.0
    return mean if mean > 0 else 1.0


def run_svm(
    frame: pd.DataFrame, grams: dict, *, C_grid, normalize_options, dataset: str, n_jobs: int = 1
) -> SvmResult:
    """Choose theta, normalisation and C on dev; fit SVC on train; score dev and test.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset (labels and ids by split).
    grams : dict
        ``{theta_or_None: {split: (gram, diag)}}`` as from :func:`compute_grams`;
        a value may also be a callable returning that dict, called when its
        turn comes (so that one threshold's matrices are in memory at a time).
    C_grid : sequence of float
    normalize_options : sequence of bool
        Kernel normalisation settings to try.
    dataset : str
        Dataset name for the table rows.
    n_jobs : int, optional
        Threads fitting the C grid of a setting (see :func:`kernbench.learners.svm.select_svc_on_dev`).

    Returns
    -------
    SvmResult
    """
    from kernbench.learners.svm import select_svc_on_dev

    parts = {s: _split(frame, s) for s in SPLITS}
    y = {s: parts[s]["label"].to_numpy() for s in SPLITS}
    scales = {}

    def settings():
        for theta, g in grams.items():
            g = g() if callable(g) else g
            _check_shapes(g, parts, theta)
            scales[theta] = kernel_scale(g["train"][1])
            for norm in normalize_options:
                yield (theta, bool(norm)), _kernel_set(g, bool(norm), scales[theta])

    sel = select_svc_on_dev(settings(), y["train"], y["dev"], C_grid, n_jobs=n_jobs)
    theta, norm = sel.key
    chosen = {"normalize": norm, "C": sel.C, "kernel_scale": 1.0 if norm else scales[theta]}
    if theta is not None:
        chosen["theta"] = float(theta)
    return _evaluate(parts, y, lambda s: sel.model.predict(getattr(sel.kernels, s)), chosen, sel.dev_scores, dataset)


def _check_shapes(g: dict, parts: dict, theta) -> None:
    for s in SPLITS:
        if g[s][0].shape != (len(parts[s]), len(parts["train"])):
            raise DataError(
                f"Gram matrix {s} (theta {theta}) has shape {g[s][0].shape}, "
                f"expected {(len(parts[s]), len(parts['train']))}: stale cache?"
            )


def _kernel_set(g: dict, normalize: bool, scale: float):
    """The SVM's matrices of one setting: cosine-normalised, or divided by ``scale``."""
    from kernbench.kernels.anygram import normalize_gram
    from kernbench.learners.svm import KernelSet

    train_diag = g["train"][1]
    mats = {s: normalize_gram(g[s][0], g[s][1], train_diag) if normalize else g[s][0] / scale for s in SPLITS}
    # As libsvm takes them without a copy: every C of the setting then trains on this one matrix.
    mats = {s: np.ascontiguousarray(m, dtype=np.float64) for s, m in mats.items()}
    return KernelSet(mats["train"], mats["dev"], mats["test"])


def _evaluate(parts: dict, y: dict, predict, chosen: dict, dev_scores: dict, dataset: str) -> SvmResult:
    """Score the chosen model on dev and test: table rows, predictions, confusion matrices."""
    from sklearn.metrics import confusion_matrix

    from kernbench.metrics import classification_scores
    from kernbench.runs import evaluate_splits

    labels = sorted(set(y["train"]) | set(y["dev"]) | set(y["test"]), key=str)
    confusion = {}

    def predict_and_count(split, part):
        y_pred = predict(split)
        confusion[split] = {
            "labels": [str(v) for v in labels],
            "matrix": confusion_matrix(y[split], y_pred, labels=labels).tolist(),
        }
        return y_pred

    rows, predictions = evaluate_splits(parts, predict_and_count, dataset=dataset, score=classification_scores)
    return SvmResult(rows, predictions, chosen, dev_scores, confusion)


def primal_features(frame: pd.DataFrame, encoder, *, system: str, lam: float, lowercase_sm: bool = True) -> dict:
    """Explicit feature maps of every split by the system's ``primal`` function, columns shared by the splits.

    Parameters
    ----------
    frame, encoder, system, lam, lowercase_sm
        As in :func:`compute_grams`; ``system`` one with a ``primal`` form in the registry.

    Returns
    -------
    dict
        ``{split: scipy.sparse.csr_matrix}``.
    """
    entry = systems.get(system)
    if entry.primal is None:
        primal = systems.names(lambda s: s.primal is not None)
        raise ValueError(f"primal training exists for {', '.join(primal)}, not {system!r}")
    setting = _KernelSetting(frame, encoder, system=system, lam=lam, lowercase_sm=lowercase_sm)
    sentences = [x for s in SPLITS for x in setting.data[s]]
    per_item = {
        k: [x for s in SPLITS for x in setting.inputs.per_item[s][k]] for k in setting.inputs.per_item.get("train", {})
    }
    phi = systems.function(entry.primal)(sentences, **per_item, **setting.inputs.kw)
    bounds = np.cumsum([0] + [len(setting.data[s]) for s in SPLITS])
    return {s: phi[bounds[k] : bounds[k + 1]] for k, s in enumerate(SPLITS)}


def run_primal(
    frame: pd.DataFrame, features: dict, *, C_grid, normalize_options, dataset: str, seed: int, n_jobs: int = 1
) -> SvmResult:
    """The SVM of :func:`run_svm` trained in the primal on explicit feature maps (no Gram matrix).

    Normalisation (L2 rows, the cosine-normalised kernel) and C are chosen on dev.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset.
    features : dict
        ``{split: sparse matrix}`` from :func:`primal_features`.
    C_grid : sequence of float
    normalize_options : sequence of bool
    dataset : str
    seed : int
        Seed of the solver's coordinate order.
    n_jobs : int, optional
        Threads over the one-vs-one class pairs.

    Returns
    -------
    SvmResult
    """
    from sklearn.metrics import accuracy_score
    from sklearn.preprocessing import normalize

    from kernbench.learners.svm import fit_primal_svm

    parts = {s: _split(frame, s) for s in SPLITS}
    y = {s: parts[s]["label"].to_numpy() for s in SPLITS}
    best, scores = None, {}
    scale = kernel_scale(features["train"].multiply(features["train"]).sum(axis=1))
    for norm in normalize_options:
        mats = {s: normalize(m) if norm else m / np.sqrt(scale) for s, m in features.items()}
        for c in C_grid:
            model = fit_primal_svm(mats["train"], y["train"], float(c), seed=seed, n_jobs=n_jobs)
            acc = float(accuracy_score(y["dev"], model.predict(mats["dev"]))) if len(y["dev"]) else 0.0
            scores[f"{bool(norm)}|{float(c)}"] = acc
            if best is None or acc > best[0]:
                best = (acc, bool(norm), float(c), model, mats)
    _, norm, c, model, mats = best
    chosen = {"normalize": norm, "C": c, "kernel_scale": 1.0 if norm else scale}
    return _evaluate(parts, y, lambda s: model.predict(mats[s]), chosen, scores, dataset)


def planned_runs(config: dict) -> list[tuple[str, str]]:
    """(dataset, system) of every kernel run a workflow config asks for: each group's systems on its datasets.

    Parameters
    ----------
    config : dict
        The workflow config; ``anygram.<group>_systems`` run on ``anygram.<group>_datasets`` (those also
        under ``datasets``) for every group of :data:`kernbench.papers.anygram.systems.GROUPS`.

    Returns
    -------
    list of tuple of str
    """
    cfg = config["anygram"]
    return [
        (d, s)
        for group in systems.GROUPS
        for d in cfg[f"{group}_datasets"]
        if d in config["datasets"]
        for s in cfg[f"{group}_systems"]
    ]


def gram_dirs(cache: str, dataset: str, system: str, cfg: dict) -> list[str]:
    """Gram directories an SVC job of (dataset, system) selects among: one per theta, or one."""
    entry = systems.get(system)
    thetas = cfg["theta"] if entry.uses_theta else [None]
    lam = cfg["lam"] if "lam" in entry.params else None
    return [f"{cache}/{dataset}/{KernelSetting(system, lam, t).name}" for t in thetas]


def gram_files(cache: str, dataset: str, system: str, cfg: dict) -> list[str]:
    """Every file of :func:`gram_dirs`: ``<split>.npz`` and ``<split>_diag.npz`` (see :mod:`kernbench.cache`)."""
    return [
        f"{d}/{split}{suffix}.npz"
        for d in gram_dirs(cache, dataset, system, cfg)
        for split in SPLITS
        for suffix in ("", "_diag")
    ]


def tile_files(
    cache: str, dataset: str, kernel: str, prepared, tile_rows: int, *, subsample: dict | None = None
) -> list[str]:
    """Row-tile files ``<cache>/<dataset>/<kernel>/tiles/<split>_<tile>.npz`` of every split of a prepared dataset.

    When ``subsample`` keeps at most ``tile_rows`` rows of every split, each split is one tile whatever the data,
    and the files are known before the dataset is prepared: the workflow plans every tile job from the start.

    Parameters
    ----------
    cache : str
        Any-gram cache directory.
    dataset, kernel : str
        Dataset name and kernel setting (:attr:`KernelSetting.name`).
    prepared : str or callable
        The prepared parquet (its split sizes decide the number of tiles), or a function returning its path,
        called only when the split sizes are needed.
    tile_rows : int
        Rows per tile.
    subsample : dict, optional
        The config's ``subsample``: the most rows prepare keeps of each split.

    Returns
    -------
    list of str
    """
    check_tile_rows(tile_rows)
    if all((subsample or {}).get(split, tile_rows + 1) <= tile_rows for split in SPLITS):
        counts = dict.fromkeys(SPLITS, 1)
    else:
        splits = pd.read_parquet(prepared() if callable(prepared) else prepared, columns=["split"])["split"]
        counts = {split: len(tile_bounds(int((splits == split).sum()), tile_rows)) for split in SPLITS}
    return [f"{cache}/{dataset}/{kernel}/tiles/{split}_{k}.npz" for split in SPLITS for k in range(counts[split])]
