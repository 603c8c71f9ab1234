"""The two baselines every dataset gets: a trivial predictor and tf-idf bag of words.

``Triv`` predicts the training set's majority class (for Reuters, a constant
decision value, the training prevalence minus 0.5, so its average precision
over the ranking is the category's prevalence and the Fisher paper's, which
needs a positively classified document, is 0); ``Triv-3stars``
is the ordinal paper's trivial baseline that scores every review 3 stars.
``BoW-TFIDF`` is tf-idf over words with a linear SVM (one-vs-rest
``LinearSVC`` for classification, one binary ``LinearSVC`` per category of a
ranking dataset: Reuters' ten, or those of a catalog entry) or, on the rated
sets, a linear epsilon-SVR whose predictions are rounded and clipped to 1-5.
Where the config gives several C values, C is chosen on the dev split and the
model refitted on train.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC, LinearSVR

from kernbench.catalog import BASELINE_SYSTEMS, DatasetSpec
from kernbench.errors import DataError
from kernbench.metrics import classification_scores, ordinal_scores, ranking_scores
from kernbench.runs import evaluate_splits, select_on_dev, table_rows


@dataclass
class BaselineResult:
    """Outcome of one baseline run.

    Attributes
    ----------
    rows : list of dict
        One ``{"dataset", "split", "metric", "value"}`` per reported number
        (``dataset`` is the category on a ranking dataset, :meth:`DatasetSpec.cell`).
    predictions : pandas.DataFrame
        Per-item predictions on the evaluated splits.
    chosen : dict
        Hyper-parameters selected on dev.
    """

    rows: list[dict]
    predictions: pd.DataFrame
    chosen: dict = field(default_factory=dict)


def _marked_tokens(frame: pd.DataFrame) -> list[list[str]]:
    """Lower-cased tokens; aspect-term tokens get the ``_AT`` suffix when the dataset has them."""
    if "aspect_mask" not in frame:
        return [[t.lower() for t in toks] for toks in frame["tokens"]]
    return [
        [t.lower() + ("_AT" if m else "") for t, m in zip(toks, mask)]
        for toks, mask in zip(frame["tokens"], frame["aspect_mask"])
    ]


def _vectoriser(spec: DatasetSpec, params: dict) -> TfidfVectorizer:
    if spec.task == "classification":
        # Pre-tokenised input: the prepared tokens are the vocabulary.
        return TfidfVectorizer(analyzer=_identity, min_df=params["min_df"], sublinear_tf=params["sublinear_tf"])
    return TfidfVectorizer(
        lowercase=True,
        min_df=params["min_df"],
        sublinear_tf=params["sublinear_tf"],
        stop_words="english" if spec.task == "ordinal" else None,
    )


def _identity(tokens):
    return tokens


def _documents(spec: DatasetSpec, frame: pd.DataFrame):
    return _marked_tokens(frame) if spec.task == "classification" else list(frame["text"])


def _split_parts(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {s: frame[frame["split"] == s] for s in ("dev", "test")}


def _run_classification(spec, frame, system, params, seed) -> BaselineResult:
    train = frame[frame["split"] == "train"]
    chosen: dict = {}
    if system == "Triv":
        model = DummyClassifier(strategy="most_frequent").fit(np.zeros((len(train), 1)), train["label"])

        def predict(part):
            return model.predict(np.zeros((len(part), 1)))
    else:
        vec = _vectoriser(spec, params)
        x_train = vec.fit_transform(_documents(spec, train))

        def fit(c):
            return LinearSVC(C=c, random_state=seed).fit(x_train, train["label"])

        chosen["C"] = _select_c(
            params["C"],
            fit,
            frame,
            lambda model, dev: classification_scores(dev["label"], model.predict(vec.transform(_documents(spec, dev))))[
                "accuracy"
            ],
            higher_is_better=True,
        )
        model = fit(chosen["C"])

        def predict(part):
            return model.predict(vec.transform(_documents(spec, part)))

    rows, predictions = evaluate_splits(
        _split_parts(frame), lambda split, part: predict(part), dataset=spec.name, score=classification_scores
    )
    return BaselineResult(rows, predictions, chosen)


def _select_c(grid, fit, frame, score, *, higher_is_better) -> float:
    """The C of ``grid`` that scores best on dev (the first on ties); the only C if there is one."""
    grid = list(grid)
    dev = frame[frame["split"] == "dev"]
    if len(grid) == 1 or dev.empty:
        return float(grid[0])
    c, _, _ = select_on_dev(((c, score(fit(c), dev), None) for c in grid), higher_is_better=higher_is_better)
    return float(c)


def _run_ranking(spec, frame, system, params, seed) -> BaselineResult:
    train = frame[frame["split"] == "train"]
    test = frame[frame["split"] == "test"]
    vec = _vectoriser(spec, params) if system == "BoW-TFIDF" else None
    if vec is not None:
        x_train = vec.fit_transform(_documents(spec, train))
        x_test = vec.transform(_documents(spec, test))
    rows, preds = [], []
    for category in spec.categories:
        y_train = np.array([category in labels for labels in train["label"]])
        y_test = np.array([category in labels for labels in test["label"]])
        if system == "BoW-TFIDF" and (y_train.all() or not y_train.any()):
            raise DataError(
                f"{spec.name}: category {category!r}: the training documents are all in or all out of it; "
                "no SVM can be trained"
            )
        if system == "Triv":
            scores = np.full(len(test), y_train.mean() - 0.5)
            y_pred = scores > 0
        else:
            # SVMlight's default C is 1 / mean(x.x), i.e. 1 on L2-normalised tf-idf vectors.
            model = LinearSVC(C=params["reuters_C"], random_state=seed).fit(x_train, y_train)
            scores = model.decision_function(x_test)
            y_pred = scores > 0
        cell = spec.cell(category)
        rows += table_rows(cell, "test", ranking_scores(y_test, scores, y_pred))
        preds.append(
            pd.DataFrame(
                {"id": test["id"], "split": "test", "category": cell, "y_true": y_test, "score": scores,
                 "y_pred": y_pred}
            )
        )
    return BaselineResult(rows, pd.concat(preds, ignore_index=True), {"C": params["reuters_C"]} if vec else {})


def _run_ordinal(spec, frame, system, params, seed) -> BaselineResult:
    train = frame[frame["split"] == "train"]
    chosen: dict = {}
    if system == "Triv":
        majority = int(train["label"].mode().min())

        def predict(part):
            return np.full(len(part), majority)
    elif system == "Triv-3stars":

        def predict(part):
            return np.full(len(part), 3)
    else:
        vec = _vectoriser(spec, params)
        x_train = vec.fit_transform(_documents(spec, train))

        def fit(c):
            return LinearSVR(C=c, epsilon=params["svr_epsilon"], random_state=seed, max_iter=10000, dual="auto").fit(
                x_train, train["label"].to_numpy(dtype=float)
            )

        def stars(model, part):
            return np.clip(np.rint(model.predict(vec.transform(_documents(spec, part)))), 1, 5).astype(int)

        chosen["C"] = _select_c(
            params["C"],
            fit,
            frame,
            lambda model, dev: ordinal_scores(dev["label"], stars(model, dev))["mae_macro"],
            higher_is_better=False,
        )
        model = fit(chosen["C"])

        def predict(part):
            return stars(model, part)

    rows, predictions = evaluate_splits(
        _split_parts(frame), lambda split, part: predict(part), dataset=spec.name, score=ordinal_scores
    )
    return BaselineResult(rows, predictions, chosen)


_RUNNERS = {"classification": _run_classification, "ranking": _run_ranking, "ordinal": _run_ordinal}


def run_baseline(spec: DatasetSpec, frame: pd.DataFrame, *, system: str, params: dict, seed: int) -> BaselineResult:
    """Train and evaluate one baseline system on one prepared dataset.

    Parameters
    ----------
    spec : DatasetSpec
        The dataset (its ``task`` selects the protocol).
    frame : pandas.DataFrame
        The prepared dataset, with ``split`` and ``label`` columns.
    system : {"Triv", "Triv-3stars", "BoW-TFIDF"}
        Which baseline (``Triv-3stars`` only on ordinal datasets).
    params : dict
        ``C`` (list, tuned on dev), ``reuters_C``, ``svr_epsilon``, ``min_df``, ``sublinear_tf``.
    seed : int
        Seed of the solvers.

    Returns
    -------
    BaselineResult
        Metric rows, per-item predictions and the chosen hyper-parameters.
    """
    if system not in BASELINE_SYSTEMS[spec.task]:
        raise ValueError(f"system {system!r} is not a baseline of {spec.name} (task {spec.task})")
    return _RUNNERS[spec.task](spec, frame, system, params, seed)
