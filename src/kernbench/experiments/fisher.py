"""Table 1 of Saunders, Shawe-Taylor & Vinokourov: six feature maps, one linear SVM per Reuters category.

A features job builds the sparse train/test matrices of one system
(:func:`build_features`, cached with :func:`save_features`); a light job per
(system, category) trains a linear SVM on them and scores the test ranking
(:func:`run_category`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from kernbench.cache import load_arrays, save_arrays
from kernbench.errors import DataError
from kernbench.fileio import atomic_path
from kernbench.kernels.fisher import Alphabet, Features, fsa_features, ngram_features, normalise_text
from kernbench.metrics import ranking_scores

#: Systems of Table 1: feature family and weighting.
SYSTEMS = {
    "BoW-TFIDF": ("bow", None),
    "ngram-uniform": ("ngram", "uniform"),
    "ngram-nonuniform": ("ngram", "nonuniform"),
    "ngram-ln": ("ngram", "ln"),
    "FSA-uniform": ("fsa", "uniform"),
    "FSA-ln": ("fsa", "ln"),
}


#: Which ModApte documents take part (``documents`` in the config).
DOCUMENT_SETS = ("all", "with_topics", "top10")


def select_documents(frame: pd.DataFrame, documents: str) -> pd.DataFrame:
    """The ModApte documents of one of :data:`DOCUMENT_SETS`.

    ``all`` keeps every ModApte document (9603 train / 3299 test),
    ``with_topics`` those with at least one topic (7775 / 3019), ``top10``
    those with at least one of the ten categories evaluated.
    """
    if documents == "all":
        return frame
    if documents == "with_topics":
        return frame[[len(labels) > 0 for labels in frame["label"]]]
    if documents == "top10":
        from kernbench.data.reuters import TOP10

        return frame[[bool(set(labels) & set(TOP10)) for labels in frame["label"]]]
    raise ValueError(f"unknown document set {documents!r}; expected one of {', '.join(DOCUMENT_SETS)}")


def _split(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    part = frame[frame["split"] == split]
    if part.empty:
        raise DataError(f"prepared reuters table has no {split!r} documents")
    return part


def build_features(frame: pd.DataFrame, system: str, params: dict) -> tuple[Features, np.ndarray, np.ndarray]:
    """Feature matrices of one system on the ModApte training and test documents.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared ``reuters`` table (``id``, ``split``, ``label``, ``text``).
    system : str
        A key of :data:`SYSTEMS`.
    params : dict
        ``documents``, ``lowercase``, ``collapse_whitespace``, ``k``,
        ``min_count``, ``t``, ``c``, ``max_state_length`` (the ``fisher``
        config block).

    Returns
    -------
    features : Features
    train_ids, test_ids : numpy.ndarray
        Document ids of the rows.
    """
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; expected one of {', '.join(SYSTEMS)}")
    family, weighting = SYSTEMS[system]
    frame = select_documents(frame, params["documents"])
    train, test = _split(frame, "train"), _split(frame, "test")
    if family == "bow":
        # The BoW-TFIDF baseline's vectoriser: words, lower-cased, smoothed idf, L2-normalised.
        vec = TfidfVectorizer(lowercase=True)
        x_train = vec.fit_transform(list(train["text"])).tocsr()
        features = Features(x_train, vec.transform(list(test["text"])).tocsr(), {"features": len(vec.vocabulary_)})
    else:

        def norm(texts):
            return [
                normalise_text(x, lowercase=params["lowercase"], collapse_whitespace=params["collapse_whitespace"])
                for x in texts
            ]

        train_texts, test_texts = norm(train["text"]), norm(test["text"])
        alphabet = Alphabet.from_texts(train_texts)
        codes_train, codes_test = alphabet.encode_all(train_texts), alphabet.encode_all(test_texts)
        if family == "ngram":
            features = ngram_features(
                codes_train,
                codes_test,
                k=params["k"],
                min_count=params["min_count"],
                weighting=weighting,
                c=params["c"],
                alphabet_size=len(alphabet),
            )
        else:
            features = fsa_features(
                codes_train,
                codes_test,
                t=params["t"],
                weighting=weighting,
                c=params["c"],
                alphabet_size=len(alphabet),
                max_state_length=params["max_state_length"],
            )
    return features, train["id"].to_numpy(), test["id"].to_numpy()


def save_features(path, features: Features, train_ids, test_ids) -> None:
    """Write the matrices and row ids, with their sha256, to one ``.npz`` (atomically; :mod:`kernbench.cache`)."""
    arrays = {"train_ids": np.asarray(train_ids, dtype=str), "test_ids": np.asarray(test_ids, dtype=str)}
    for name, matrix in (("train", features.train), ("test", features.test)):
        matrix = sp.csr_matrix(matrix)
        arrays.update(
            {
                f"{name}_data": matrix.data,
                f"{name}_indices": matrix.indices,
                f"{name}_indptr": matrix.indptr,
                f"{name}_shape": np.array(matrix.shape),
            }
        )
    save_arrays(path, **arrays)


def load_features(path) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray]:
    """Read what :func:`save_features` wrote: train matrix, test matrix, train ids, test ids.

    Raises
    ------
    kernbench.cache.CacheError
        If the file is truncated or corrupted (its content no longer matches its sha256).
    """
    names = ("train_ids", "test_ids") + tuple(
        f"{n}_{part}" for n in ("train", "test") for part in ("data", "indices", "indptr", "shape")
    )
    z = load_arrays(path, names)
    matrices = [
        sp.csr_matrix((z[f"{n}_data"], z[f"{n}_indices"], z[f"{n}_indptr"]), shape=tuple(z[f"{n}_shape"]))
        for n in ("train", "test")
    ]
    return matrices[0], matrices[1], z["train_ids"], z["test_ids"]


def _labels(frame: pd.DataFrame, ids: np.ndarray, category: str, path_hint: str) -> np.ndarray:
    member = {i: category in labels for i, labels in zip(frame["id"], frame["label"])}
    missing = [i for i in ids if i not in member]
    if missing:
        raise DataError(f"{path_hint}: feature rows {missing[:5]} are not in the prepared reuters table")
    return np.fromiter((member[i] for i in ids), dtype=bool, count=len(ids))


def run_category(
    x_train: sp.csr_matrix,
    x_test: sp.csr_matrix,
    y_train: np.ndarray,
    y_test: np.ndarray,
    *,
    C: float,
    loss: str,
    max_iter: int,
    seed: int,
) -> tuple[dict, np.ndarray]:
    """Train a linear SVM for one category and score the test ranking.

    Parameters
    ----------
    x_train, x_test : scipy.sparse.csr_matrix
        Feature rows (L2-normalised).
    y_train, y_test : numpy.ndarray of bool
        Category membership.
    C : float
        Soft-margin constant (SVMlight's default 1 / mean(x·x) is 1 here).
    loss : {"hinge", "squared_hinge"}
        liblinear loss; ``hinge`` is SVMlight's.
    max_iter : int
        liblinear iteration limit.
    seed : int
        liblinear's random state.

    Returns
    -------
    scores : dict
        ``average_precision``, ``precision``, ``recall``, ``f1`` (fractions).
    decision : numpy.ndarray
        Decision values on the test documents.
    """
    if y_train.all() or not y_train.any():
        raise DataError("the training documents are all in or all out of the category; no SVM can be trained")
    model = LinearSVC(C=C, loss=loss, max_iter=max_iter, random_state=seed, dual=True)
    model.fit(x_train, y_train)
    decision = model.decision_function(x_test)
    y_pred = decision > 0
    scores = ranking_scores(y_test, decision, y_pred)
    tp = int((y_pred & y_test).sum())
    scores["precision"] = tp / int(y_pred.sum()) if y_pred.any() else 0.0
    scores["recall"] = tp / int(y_test.sum()) if y_test.any() else 0.0
    return scores, decision


def evaluate(frame: pd.DataFrame, features_path, *, category: str, params: dict, seed: int):
    """Run :func:`run_category` on cached features.

    Returns
    -------
    rows : list of dict
        Table rows (``dataset`` is the category, split ``test``).
    predictions : pandas.DataFrame
        ``id``, ``split``, ``category``, ``y_true``, ``score``, ``y_pred``.
    """
    x_train, x_test, train_ids, test_ids = load_features(features_path)
    y_train = _labels(frame, train_ids, category, str(features_path))
    y_test = _labels(frame, test_ids, category, str(features_path))
    scores, decision = run_category(
        x_train, x_test, y_train, y_test, C=params["C"], loss=params["loss"], max_iter=params["max_iter"], seed=seed
    )
    rows = [
        {"dataset": category, "split": "test", "metric": m, "value": float(scores[m])}
        for m in ("average_precision", "precision", "recall", "f1")
    ]
    predictions = pd.DataFrame(
        {
            "id": test_ids,
            "split": "test",
            "category": category,
            "y_true": y_test,
            "score": decision,
            "y_pred": decision > 0,
        }
    )
    return rows, predictions


def plot_average_precision(record_paths, paper_values_path, out) -> None:
    """Grouped bars of test average precision (%) per category and system, the paper's values as ticks.

    Parameters
    ----------
    record_paths : iterable of path-like
        Run records of the ``fisher-svm`` jobs.
    paper_values_path : path-like
        ``workflow/paper_results.yaml``.
    out : path-like
        PNG to write (atomically).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kernbench.records import load_record
    from kernbench.tables import load_paper_values

    rows = [
        {"category": row["dataset"], "system": record["system"], "value": 100.0 * row["value"]}
        for record in map(load_record, record_paths)
        for row in record["rows"]
        if row["metric"] == "average_precision"
    ]
    if not rows:
        raise DataError("no average_precision rows in the fisher run records")
    ours = pd.DataFrame(rows).groupby(["category", "system"])["value"].mean().unstack()
    paper = load_paper_values(paper_values_path)
    paper = paper[paper["metric"] == "average_precision"].pivot_table(
        index="dataset", columns="system", values="paper_value"
    )
    categories = [c for c in _category_order() if c in ours.index] + sorted(set(ours.index) - set(_category_order()))
    systems = [s for s in SYSTEMS if s in ours.columns]
    width = 0.8 / len(systems)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.3 * len(categories)), 5.0))
    x = np.arange(len(categories))
    for i, system in enumerate(systems):
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, ours.loc[categories, system], width, label=system)
        if system in paper.columns:
            ref = paper[system].reindex(categories)
            ax.scatter(pos, ref, marker="_", color="black", s=60, zorder=3, label="paper" if i == 0 else None)
    ax.set_xticks(x, categories)
    ax.set_ylabel("average precision (%)")
    low = float(np.nanmin(ours.loc[categories, systems].to_numpy()))
    ax.set_ylim(max(0.0, min(low, 80.0) - 5.0), 100.5)
    ax.set_title("Reuters-21578 ModApte, test average precision (black ticks: the paper's Table 1)")
    ax.legend(ncol=4, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.08))
    fig.tight_layout()
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)


def _category_order():
    from kernbench.data.reuters import TOP10

    return list(TOP10)
