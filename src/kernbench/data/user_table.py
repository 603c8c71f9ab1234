"""A dataset of the user's own: one CSV or parquet file of labelled texts (a ``catalog`` entry of the config).

Columns ``text``, ``label`` and ``split`` (``train``, ``dev`` or ``test``) are
required; ``tokens`` and ``id`` are optional, other columns are ignored. What a
label is depends on the entry's task:

- ``classification``: a class. CSV labels that are all integers become integers,
  others stay strings; parquet labels must be integers or strings.
- ``ordinal``: a rating, an integer from 1 to 5.
- ``ranking``: the categories of a document, a list (possibly empty): in CSV the
  category names separated by whitespace, in parquet a list of strings.

Other columns:

- ``tokens`` (classification): a list of strings per row in parquet,
  whitespace-separated tokens in CSV. Without it, ``text`` is tokenised as the
  SemEval sentences are (:func:`kernbench.data.semeval14.tokenize`). The other
  tasks read ``text`` alone.
- No ``dev`` rows (classification, ordinal): a seeded, label-stratified share
  ``dev_fraction`` of the training rows is held out as dev, as for SemEval. A
  ranking dataset is trained on ``train`` and scored on ``test``, as Reuters is.
- ``id``: kept as the item id where given (unique); otherwise ``row-<n>``, n counting the data rows from 1.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.data import SPLITS
from kernbench.data.dev_split import hold_out_dev
from kernbench.data.semeval14 import tokenize
from kernbench.errors import DataError

REQUIRED_COLUMNS = ("text", "label", "split")
OPTIONAL_COLUMNS = ("tokens", "id")
#: Columns of the prepared table, per task.
PREPARED_COLUMNS = {
    "classification": ["id", "split", "label", "text", "tokens"],
    "ordinal": ["id", "split", "label", "text"],
    "ranking": ["id", "split", "label", "text"],
}
#: Ratings of an ordinal dataset.
RATINGS = (1, 2, 3, 4, 5)

_INTEGER = re.compile(r"[+-]?\d+")


def _read_csv(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The file's columns as strings, and where each row starts (``line N``)."""
    try:
        # utf-8-sig: spreadsheet programs start their CSV files with a byte-order mark
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read file: {exc}") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, places = [], []
    try:
        header = next(reader, None)
        if header is None:
            raise DataError(f"{path}: file is empty, expected a header line with {', '.join(REQUIRED_COLUMNS)}")
        start = reader.line_num + 1
        for record in reader:
            if record:  # blank lines are skipped
                if len(record) != len(header):
                    raise DataError(f"{path}: line {start}: {len(record)} fields, the header has {len(header)}")
                rows.append(record)
                places.append(f"line {start}")
            start = reader.line_num + 1  # a quoted field may span lines
    except csv.Error as exc:
        raise DataError(f"{path}: line {reader.line_num}: not valid CSV ({exc})") from None
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise DataError(f"{path}: header names column(s) {', '.join(map(repr, repeated))} more than once")
    frame = pd.DataFrame(rows, columns=header, dtype=object)
    if "tokens" in frame:
        frame["tokens"] = [value.split() for value in frame["tokens"]]
    return frame, places


def _read_parquet(path: Path) -> tuple[pd.DataFrame, list[str]]:
    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a readable parquet file ({exc})") from None
    return frame.reset_index(drop=True), [f"row {i + 1}" for i in range(len(frame))]


def read_table(path: str | os.PathLike) -> tuple[pd.DataFrame, list[str]]:
    """Read a dataset file and check its columns.

    Parameters
    ----------
    path : path-like
        ``.csv`` (UTF-8, header line) or ``.parquet``.

    Returns
    -------
    frame : pandas.DataFrame
        The file's rows, with its columns as read (CSV ``tokens`` split on whitespace).
    places : list of str
        Where each row is in the file (``line N`` in CSV, ``row N`` in parquet), for error messages.

    Raises
    ------
    DataError
        If the file cannot be read, has another suffix or lacks a required column.
    """
    path = Path(path)
    suffix = path.suffix
    if suffix == ".csv":
        frame, places = _read_csv(path)
    elif suffix == ".parquet":
        frame, places = _read_parquet(path)
    else:
        raise DataError(f"{path}: a dataset file is .csv or .parquet, not {suffix or 'without a suffix'}")
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(
            f"{path}: no column {', '.join(map(repr, missing))} (needed: {', '.join(REQUIRED_COLUMNS)}; "
            f"optional: {', '.join(OPTIONAL_COLUMNS)}); the file has {', '.join(map(repr, map(str, frame.columns)))}"
        )
    if frame.empty:
        raise DataError(f"{path}: no rows")
    return frame, places


def _splits(values, places, path: Path) -> list[str]:
    for value, where in zip(values, places):
        if value not in SPLITS:
            raise DataError(f"{path}: {where}: split {value!r} is not one of {', '.join(SPLITS)}")
    return list(values)


def _missing(value) -> bool:
    """Whether a cell holds no value (None, NaN, NA or a blank string)."""
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or array is a value
        return False


def _labels(values: pd.Series, places, path: Path, *, from_csv: bool) -> pd.Series:
    """The labels of a classification dataset (or the ratings of an ordinal one, checked by :func:`_ratings`)."""
    for value, where in zip(values, places):
        if _missing(value):
            raise DataError(f"{path}: {where}: empty label")
    if from_csv:
        if all(_INTEGER.fullmatch(v.strip()) for v in values):
            return values.map(lambda v: int(v.strip())).astype("int64")
        return values.astype(str)
    if pd.api.types.is_integer_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.astype("int64")
    if all(isinstance(v, str) for v in values):
        return values.astype(str)
    kinds = sorted({type(v).__name__ for v in values})
    raise DataError(f"{path}: column 'label' holds {', '.join(kinds)} values; labels must be integers or strings")


def _ratings(values: pd.Series, places, path: Path, *, from_csv: bool) -> pd.Series:
    """The labels of an ordinal dataset: integer ratings 1-5."""
    out = []
    for value, where in zip(values, places):
        if _missing(value):
            raise DataError(f"{path}: {where}: empty label")
        if from_csv:
            rating = int(value.strip()) if _INTEGER.fullmatch(value.strip()) else None
        else:
            integral = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            rating = int(value) if integral else None
        if rating not in RATINGS:
            raise DataError(f"{path}: {where}: label {value!r} is not a rating 1-5 (task: ordinal)")
        out.append(rating)
    return pd.Series(out, dtype="int64")


def _category_lists(values: pd.Series, places, path: Path, *, from_csv: bool) -> list[list[str]]:
    """The labels of a ranking dataset: each document's categories (whitespace-separated in CSV)."""
    out = []
    for value, where in zip(values, places):
        if from_csv:
            out.append(value.split())
        elif isinstance(value, (list, tuple, np.ndarray)) and all(isinstance(c, str) for c in value):
            out.append([str(c) for c in value])
        else:
            raise DataError(f"{path}: {where}: label {value!r} is not a list of category names (task: ranking)")
    return out


def _texts(values, places, path: Path, *, blank: bool) -> list[str]:
    """The texts; ``blank``: a blank text is let through (tokens given for it, or its lack of tokens, decide)."""
    for value, where in zip(values, places):
        if not isinstance(value, str):
            raise DataError(f"{path}: {where}: text {value!r} is not a string")
        if not blank and not value.strip():
            raise DataError(f"{path}: {where}: empty text")
    return list(values)


def _tokens(frame: pd.DataFrame, places, path: Path) -> list[list[str]]:
    if "tokens" in frame:
        out = []
        for value, where in zip(frame["tokens"], places):
            if not isinstance(value, (list, tuple, np.ndarray)) or not all(isinstance(t, str) for t in value):
                raise DataError(f"{path}: {where}: tokens {value!r} are not a list of strings")
            out.append([str(t) for t in value])
    else:
        out = [tokenize(text)[0] for text in frame["text"]]
    for tokens, where in zip(out, places):
        if not tokens:
            raise DataError(f"{path}: {where}: no tokens ({'empty tokens' if 'tokens' in frame else 'empty text'})")
    return out


def _ids(frame: pd.DataFrame, places, path: Path) -> list[str]:
    if "id" not in frame:
        return [f"row-{i + 1}" for i in range(len(frame))]
    ids = [str(v) for v in frame["id"]]
    seen: dict[str, str] = {}
    for raw, value, where in zip(frame["id"], ids, places):
        if _missing(raw):
            raise DataError(f"{path}: {where}: empty id")
        if value in seen:
            raise DataError(f"{path}: {where}: id {value!r} repeats that of {seen[value]}")
        seen[value] = where
    return ids


def prepare(path: str | os.PathLike, *, dev_fraction: float, seed: int, task: str = "classification") -> pd.DataFrame:
    """Build the prepared table of a dataset file.

    Parameters
    ----------
    path : path-like
        The ``.csv`` or ``.parquet`` file (see the module docstring for its columns).
    dev_fraction : float
        Share of the training rows held out as dev when the file has no dev rows (not for ranking).
    seed : int
        Seed of that hold-out.
    task : {"classification", "ordinal", "ranking"}
        The catalog entry's task: what a label is.

    Returns
    -------
    pandas.DataFrame
        Columns ``id``, ``split``, ``label``, ``text`` and, for classification, ``tokens`` (list
        of str); train, dev, then test rows, each in file order.

    Raises
    ------
    DataError
        Naming the file and, where it applies, the line or row: a missing column, a split
        other than train/dev/test, an empty label or text, a rating outside 1-5, malformed
        tokens or categories, a repeated id, no training or no test rows.
    """
    if task not in PREPARED_COLUMNS:
        raise ValueError(f"unknown task {task!r}; expected one of {', '.join(PREPARED_COLUMNS)}")
    path = Path(path)
    frame, places = read_table(path)
    from_csv = path.suffix == ".csv"
    splits = np.array(_splits(frame["split"], places, path), dtype=object)
    columns = {"id": _ids(frame, places, path), "split": splits}
    if task == "ranking":
        columns["label"] = _category_lists(frame["label"], places, path, from_csv=from_csv)
    else:
        read = _ratings if task == "ordinal" else _labels
        columns["label"] = read(frame["label"], places, path, from_csv=from_csv).to_numpy()
    columns["text"] = _texts(frame["text"], places, path, blank=task == "classification")
    if task == "classification":
        columns["tokens"] = _tokens(frame, places, path)
    prepared = pd.DataFrame(columns)
    for split in ("train", "test"):
        if not (splits == split).any():
            raise DataError(f"{path}: no {split} rows (column 'split')")
    if task != "ranking" and not (splits == "dev").any():
        train = np.flatnonzero(splits == "train")
        held_out = hold_out_dev(prepared["label"].to_numpy()[train], dev_fraction=dev_fraction, seed=seed, path=path)
        prepared.loc[train[held_out], "split"] = "dev"
    order = prepared["split"].map({s: i for i, s in enumerate(SPLITS)}).to_numpy()
    return prepared.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)[PREPARED_COLUMNS[task]]


def parse_classification(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of a catalog dataset of task ``classification`` (see :func:`prepare`)."""
    (path,) = paths
    return prepare(path, dev_fraction=dev_fraction, seed=seed, task="classification")


def parse_ordinal(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of a catalog dataset of task ``ordinal`` (see :func:`prepare`)."""
    (path,) = paths
    return prepare(path, dev_fraction=dev_fraction, seed=seed, task="ordinal")


def parse_ranking(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of a catalog dataset of task ``ranking`` (see :func:`prepare`)."""
    (path,) = paths
    return prepare(path, dev_fraction=dev_fraction, seed=seed, task="ranking")
