"""Sensitivity of Table 3 (Kaljahi & Foster) to the choices the paper leaves open.

Each function returns rows of :func:`kernbench.report.sensitivity.sensitivity_row`:
the test accuracy of one system under an alternative setting against the main
table's own predictions (the default) on the same test items. Alternatives are
run with the main jobs' library functions: :func:`compute_grams` and
:func:`run_svm` (theta, normalisation and C chosen on dev; SVC on Gram
matrices, the default ``anygram.training``) for the kernels,
:func:`kernbench.papers.anygram.lstm.train_lstm` for the LSTMs (one ``kernbench lstm`` job per run).

* ``anygram.lam``: the decay of the any-gram kernels;
* ``semeval14.dev_split_seed``: the seeded 10 % dev hold-out of the SemEval
  training file. The Gram matrix over the whole training file is computed once
  and sliced per split; C (and theta, normalisation) is chosen on each new dev
  and the SVM refitted on each new train. Test items do not move;
* ``anygram.lowercase_sm``: string match on lower-cased tokens or as written;
* ``anygram.split_contractions``, ``anygram.identical_match``, ``anygram.aspect_bit``: the encoding of
  the tokens (:class:`kernbench.kernels.anygram_encoding.Encoding`), theta re-chosen on dev over the
  main grid for the threshold systems;
* ``lstm.trainable_embeddings``: the LSTMs' embedding layer frozen or trained.
* ``lstm.bucket_batches``: the LSTMs' training batches from length-sorted pools or a plain shuffle.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.papers.anygram.experiment import compute_grams, run_svm
from kernbench.report.sensitivity import sensitivity_row

log = logging.getLogger(__name__)

PAPER, TABLE, METRIC = "anygram", "anygram", "accuracy"


def test_predictions(path, test_ids) -> np.ndarray:
    """Test predictions of a main-table run, in the order of ``test_ids``.

    Parameters
    ----------
    path : path-like
        ``<system>.predictions.parquet`` of a run (columns ``id``, ``split``, ``y_pred``).
    test_ids : sequence of str
        The prepared dataset's test ids.

    Raises
    ------
    DataError
        If the file lacks a test item (the run was made on other data).
    """
    frame = pd.read_parquet(path)
    pred = frame[frame["split"] == "test"].set_index("id")["y_pred"]
    missing = pd.Index(test_ids).difference(pred.index)
    if len(missing):
        raise DataError(f"{path}: no test prediction for {len(missing)} items (e.g. {missing[0]}): stale run?")
    return pred.loc[list(test_ids)].to_numpy()


def _test_part(frame: pd.DataFrame):
    test = frame[frame["split"] == "test"]
    return test["id"].tolist(), test["label"].to_numpy()


def _svm_test_predictions(result, test_ids) -> np.ndarray:
    preds = result.predictions
    return preds[preds["split"] == "test"].set_index("id").loc[test_ids, "y_pred"].to_numpy()


def _row(*, choice, dataset, system, default, alternative, y_true, y_default, y_alternative, resamples, seed):
    return sensitivity_row(
        paper=PAPER, table=TABLE, choice=choice, dataset=dataset, system=system, metric=METRIC, default=default,
        alternative=alternative, y_true=y_true, y_default=y_default, y_alternative=y_alternative,
        resamples=resamples, seed=seed,
    )  # fmt: skip


def lam_rows(frame, encoder, *, dataset, systems, lams, default_lam, C_grid, normalize_options, default_predictions,
             resamples, seed, lowercase_sm=True) -> list[dict]:  # fmt: skip
    """Rows of ``anygram.lam``: each system retrained at each alternative decay.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset of the main table.
    encoder : kernbench.kernels.anygram_encoding.TokenEncoder
    dataset : str
    systems : sequence of str
        Systems without a threshold.
    lams : sequence of float
        Alternative decays.
    default_lam : float
    C_grid, normalize_options
        As in the main job (:func:`kernbench.papers.anygram.experiment.run_svm`).
    default_predictions : dict
        ``{system: path}`` of the main table's predictions.
    resamples, seed : int
        Paired bootstrap.
    lowercase_sm : bool, optional
        ``anygram.lowercase_sm`` of the main table.

    Returns
    -------
    list of dict
    """
    test_ids, y_true = _test_part(frame)
    rows = []
    for system in systems:
        y_default = test_predictions(default_predictions[system], test_ids)
        for lam in lams:
            grams = compute_grams(frame, encoder, system=system, lam=lam, lowercase_sm=lowercase_sm)
            result = run_svm(frame, {None: grams}, C_grid=C_grid, normalize_options=normalize_options, dataset=dataset)
            log.info("%s %s lam %g: chose %s", dataset, system, lam, result.chosen)
            rows.append(_row(
                choice="anygram.lam", dataset=dataset, system=system, default=f"lam = {default_lam:g}",
                alternative=f"lam = {lam:g}", y_true=y_true, y_default=y_default,
                y_alternative=_svm_test_predictions(result, test_ids), resamples=resamples, seed=seed,
            ))  # fmt: skip
    return rows


def lowercase_sm_rows(frame, encoder, *, dataset, systems, lam, C_grid, normalize_options, default_predictions,
                      resamples, seed, lowercase_sm=True) -> list[dict]:  # fmt: skip
    """Rows of ``anygram.lowercase_sm``: each string-match system with the other casing.

    Parameters are those of :func:`lam_rows`; ``systems`` are systems that see the casing (``casing`` in
    :data:`kernbench.papers.anygram.systems.SYSTEMS`), without a threshold, and ``default_predictions`` their
    main predictions, made with ``lowercase_sm``.
    """
    test_ids, y_true = _test_part(frame)
    name = {True: "lower-cased string match", False: "cased string match"}
    rows = []
    for system in systems:
        grams = compute_grams(frame, encoder, system=system, lam=lam, lowercase_sm=not lowercase_sm)
        result = run_svm(frame, {None: grams}, C_grid=C_grid, normalize_options=normalize_options, dataset=dataset)
        log.info("%s %s lowercase_sm=%s: chose %s", dataset, system, not lowercase_sm, result.chosen)
        rows.append(_row(
            choice="anygram.lowercase_sm", dataset=dataset, system=system, default=name[lowercase_sm],
            alternative=name[not lowercase_sm], y_true=y_true,
            y_default=test_predictions(default_predictions[system], test_ids),
            y_alternative=_svm_test_predictions(result, test_ids), resamples=resamples, seed=seed,
        ))  # fmt: skip
    return rows


#: Encoding choice -> how a row names each of its values.
ENCODING_LABELS = {
    "split_contractions": {True: "contractions split (do n't)", False: "contractions whole (don't)"},
    "identical_match": {True: "identical tokens match", False: "unknown words match nothing"},
    "aspect_bit": {"raw": "aspect bit on the raw vector", "unit": "aspect bit on the unit vector"},
}


def encoding_rows(frame, encoder, *, choice, alternative, dataset, systems, lam, thetas, C_grid, normalize_options,
                  default_predictions, resamples, seed, lowercase_sm=True) -> list[dict]:  # fmt: skip
    """Rows of ``anygram.<choice>`` for an encoding choice: each system retrained with its other value.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset of the main table.
    encoder : kernbench.kernels.anygram_encoding.TokenEncoder
        The main table's encoder (its ``encoding`` is the default side).
    choice : str
        A key of :data:`ENCODING_LABELS`.
    alternative
        The value measured instead of the encoder's.
    dataset, lam, C_grid, normalize_options, resamples, seed, lowercase_sm
        As in :func:`lam_rows`.
    systems : sequence of str
    thetas : sequence of float
        The main job's theta grid (threshold systems choose among it on dev, as the main job does).
    default_predictions : dict
        ``{system: path}`` of the main table's predictions.

    Returns
    -------
    list of dict
    """
    from kernbench.papers.anygram.systems import get

    test_ids, y_true = _test_part(frame)
    other = encoder.with_encoding(**{choice: alternative})
    labels = ENCODING_LABELS[choice]
    rows = []
    for system in systems:
        grams = {
            t: compute_grams(frame, other, system=system, lam=lam, theta=t, lowercase_sm=lowercase_sm)
            for t in (thetas if get(system).uses_theta else [None])
        }
        result = run_svm(frame, grams, C_grid=C_grid, normalize_options=normalize_options, dataset=dataset)
        log.info("%s %s %s=%s: chose %s", dataset, system, choice, alternative, result.chosen)
        rows.append(_row(
            choice=f"anygram.{choice}", dataset=dataset, system=system,
            default=labels[getattr(encoder.encoding, choice)], alternative=labels[alternative], y_true=y_true,
            y_default=test_predictions(default_predictions[system], test_ids),
            y_alternative=_svm_test_predictions(result, test_ids), resamples=resamples, seed=seed,
        ))  # fmt: skip
    return rows


def pool_grams(frame, encoder, *, system, lam, theta=None, lowercase_sm=True) -> tuple[pd.DataFrame, dict]:
    """Gram matrices over the whole SemEval training file (train and dev pooled) and of test against it.

    Returns
    -------
    pool : pandas.DataFrame
        The training-file rows (train and dev of ``frame``) in their order.
    grams : dict
        ``{"pool": (K(pool, pool), diag), "test": (K(test, pool), diag)}``.
    """
    pool = frame[frame["split"].isin(["train", "dev"])]
    test = frame[frame["split"] == "test"]
    # compute_grams works on train/dev/test: the pool is the training split, dev is left empty
    pooled = pd.concat([pool.assign(split="train"), test], ignore_index=True)
    g = compute_grams(pooled, encoder, system=system, lam=lam, theta=theta, lowercase_sm=lowercase_sm)
    return pool, {"pool": g["train"], "test": g["test"]}


def resplit_grams(pool: pd.DataFrame, test: pd.DataFrame, grams: dict, dev: np.ndarray):
    """The frame and ``{split: (gram, diag)}`` of :func:`run_svm` for one dev hold-out of the pool.

    Parameters
    ----------
    pool, test : pandas.DataFrame
        Training-file and test rows.
    grams : dict
        From :func:`pool_grams`.
    dev : numpy.ndarray of bool
        Dev mask over the pool rows.
    """
    train = ~dev
    k_pool, d_pool = grams["pool"]
    k_test, d_test = grams["test"]
    sliced = {
        "train": (k_pool[np.ix_(train, train)], d_pool[train]),
        "dev": (k_pool[np.ix_(dev, train)], d_pool[dev]),
        "test": (k_test[:, train], d_test),
    }
    frame = pd.concat(
        [pool[train].assign(split="train"), pool[dev].assign(split="dev"), test], ignore_index=True
    )
    return frame, sliced


def dev_split_rows(frame, encoder, *, dataset, systems, split_seeds, default_seed, dev_fraction, lam, thetas, C_grid,
                   normalize_options, default_predictions, resamples, seed, lowercase_sm=True) -> list[dict]:  # fmt: skip
    """Rows of ``semeval14.dev_split_seed``: other seeded dev hold-outs of the training file.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared SemEval dataset (``sentence_id`` for the grouped split).
    encoder, dataset, lam, C_grid, normalize_options, resamples, seed, lowercase_sm
        As in :func:`lam_rows`.
    systems : sequence of str
    split_seeds : sequence of int
        Alternative seeds of the hold-out.
    default_seed : int
        The seed of the main table's split.
    dev_fraction : float
        ``semeval14.dev_fraction``.
    thetas : dict
        ``{system: theta}`` of the threshold systems (the main job's dev choice).
    default_predictions : dict
        ``{system: path}``.

    Returns
    -------
    list of dict
    """
    from kernbench.data.semeval14 import dev_mask

    test_ids, y_true = _test_part(frame)
    test = frame[frame["split"] == "test"]
    rows = []
    for system in systems:
        theta = thetas.get(system)
        pool, grams = pool_grams(frame, encoder, system=system, lam=lam, theta=theta, lowercase_sm=lowercase_sm)
        y_default = test_predictions(default_predictions[system], test_ids)
        for split_seed in split_seeds:
            dev = dev_mask(pool, dev_fraction=dev_fraction, seed=split_seed, path=dataset)
            sub_frame, sub_grams = resplit_grams(pool, test, grams, dev)
            result = run_svm(
                sub_frame, {theta: sub_grams}, C_grid=C_grid, normalize_options=normalize_options, dataset=dataset
            )
            log.info("%s %s split seed %d: chose %s", dataset, system, split_seed, result.chosen)
            label = f"dev split seed {split_seed}" + (f" (theta {theta:g})" if theta is not None else "")
            rows.append(_row(
                choice="semeval14.dev_split_seed", dataset=dataset, system=system,
                default=f"dev split seed {default_seed}", alternative=label, y_true=y_true, y_default=y_default,
                y_alternative=_svm_test_predictions(result, test_ids), resamples=resamples, seed=seed,
            ))  # fmt: skip
    return rows


def chosen_theta(record_path) -> float:
    """The threshold a main-table run of a threshold system chose on dev (from its run record)."""
    record = json.loads(Path(record_path).read_text())
    try:
        return float(record["params"]["chosen"]["theta"])
    except KeyError as exc:
        raise DataError(f"{record_path}: the run record names no chosen theta") from exc


def lstm_setting_label(choice: str, value) -> str:
    """How a sensitivity row names the value of an LSTM choice."""
    if choice == "trainable_embeddings":
        return "trainable embeddings" if value else "frozen embeddings"
    if choice == "bucket_batches":
        return "plain shuffled batches" if int(value) <= 1 else f"length-sorted pools of {int(value)} batches"
    raise ValueError(f"unknown LSTM choice {choice!r}")


def lstm_choice_rows(frame, *, choice, dataset, systems, seeds, default_value, alternative_value, default_predictions,
                     alternative_predictions, resamples, seed) -> list[dict]:  # fmt: skip
    """Rows of ``lstm.<choice>``: each LSTM, every seed, against its run with the choice's alternative value.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared dataset (its test split is scored).
    choice : str
        An LSTM setting the paper leaves open (``trainable_embeddings``, ``bucket_batches``).
    dataset : str
    systems : sequence of str
        ``UniLSTM`` / ``BiLSTM``.
    seeds : sequence of int
        The main table's seeds; values are seed means, the bootstrap pairs per-seed predictions.
    default_value, alternative_value
        The main table's value of ``lstm.<choice>`` and the one retrained with.
    default_predictions, alternative_predictions : dict
        ``{(system, seed): path}`` of the main table's predictions and of the runs with the alternative.

    Returns
    -------
    list of dict
    """
    test_ids, y_true = _test_part(frame)
    rows = []
    for system in systems:
        y_default = [test_predictions(default_predictions[system, run_seed], test_ids) for run_seed in seeds]
        y_alt = [test_predictions(alternative_predictions[system, run_seed], test_ids) for run_seed in seeds]
        rows.append(_row(
            choice=f"lstm.{choice}", dataset=dataset, system=system, default=lstm_setting_label(choice, default_value),
            alternative=lstm_setting_label(choice, alternative_value), y_true=y_true, y_default=np.array(y_default),
            y_alternative=np.array(y_alt), resamples=resamples, seed=seed,
        ))  # fmt: skip
    return rows



def sensitivity_jobs(config: dict) -> dict:
    """The kernel sensitivity jobs a workflow config asks for.

    Datasets and systems are kept only where the main table runs them (their
    predictions are the default side); a job without datasets, systems or
    alternatives is left out.

    Parameters
    ----------
    config : dict
        The workflow config.

    Returns
    -------
    dict
        ``{key: (choice, datasets, systems, settings)}`` with ``key`` the
        ``--choice`` of ``kernbench anygram-sensitivity`` and ``settings`` its ``--settings``.
    """
    cfg = config["anygram"]
    sens = cfg["sensitivity"]

    def datasets(names):
        return [d for d in names if d in config["datasets"] and d in cfg["agk_datasets"]]

    def systems(names):
        return [s for s in names if s in cfg["agk_systems"]]

    from kernbench.kernels.anygram_encoding import ASPECT_BITS, Encoding
    from kernbench.papers.anygram.systems import names as registered

    casing = registered(lambda s: s.casing and not s.uses_theta)

    encoding = Encoding.from_config(cfg).as_dict()
    common = {"lam": cfg["lam"], "lowercase_sm": cfg["lowercase_sm"], "C": cfg["C"], "normalize": cfg["normalize"],
              "encoding": encoding, "theta": cfg["theta"]}  # fmt: skip
    other_bit = [b for b in ASPECT_BITS if b != encoding["aspect_bit"]]
    jobs = {
        "lam": ("anygram.lam", datasets(sens["datasets"]), systems(sens["lam_systems"]),
                {"alternatives": [x for x in sens["lam"] if x != cfg["lam"]]}),
        "dev_split": ("semeval14.dev_split_seed", datasets(sens["datasets"]), systems(sens["dev_split_systems"]),
                      {"alternatives": [x for x in sens["dev_split_seeds"] if x != config["seed"]],
                       "default_seed": config["seed"], "dev_fraction": config["semeval14"]["dev_fraction"]}),
        "lowercase_sm": ("anygram.lowercase_sm", datasets(sens["lowercase_sm_datasets"]), systems(casing),
                         {"alternatives": [not cfg["lowercase_sm"]]}),
        "split_contractions": ("anygram.split_contractions", datasets(sens["datasets"]),
                               systems(sens["split_contractions_systems"]),
                               {"alternatives": [not encoding["split_contractions"]]}),
        "identical_match": ("anygram.identical_match", datasets(sens["datasets"]),
                            systems(sens["identical_match_systems"]), {"alternatives": [not encoding["identical_match"]]}),
        "aspect_bit": ("anygram.aspect_bit", datasets(sens["datasets"]), systems(sens["aspect_bit_systems"]),
                       {"alternatives": other_bit}),
    }  # fmt: skip
    return {
        key: (choice, ds, ss, {**common, "systems": ss, **settings})
        for key, (choice, ds, ss, settings) in jobs.items()
        if ds and ss and settings["alternatives"]
    }
