"""Star-rated review corpora: women's clothing (CSV) and TripAdvisor hotels (JSONL).

Each corpus ships with ``split_suggested.tsv``, which lists the usable rows,
their rating and a train/validation/test split; only those rows are kept and
"validation" is renamed "dev".
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pandas as pd

from kernbench.errors import DataError

_SPLIT_NAMES = {"train": "train", "validation": "dev", "test": "test"}
_PREPARED_COLUMNS = ["id", "split", "label", "text"]


def _integer(value: object) -> int | None:
    """``value`` as an int if it is an integer or a string of one, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _rating(value: object, *, where: str, field: str, low: int = 1, high: int = 5) -> int:
    rating = _integer(value)
    if rating is None:
        raise DataError(f"{where}: field '{field}'={value!r} is not an integer rating")
    if not low <= rating <= high:
        raise DataError(f"{where}: field '{field}'={rating} is outside {low}-{high}")
    return rating


def _read_split(path: Path, row_column: str) -> pd.DataFrame:
    """Read ``split_suggested.tsv``; columns ``row``, ``rating``, ``split`` and
    any others as str."""
    try:
        table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE)
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: file is empty, expected a header line") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as exc:
        raise DataError(f"{path}: cannot parse as TSV: {exc}") from None
    missing = [c for c in (row_column, "rating", "split") if c not in table.columns]
    if missing:
        raise DataError(f"{path}: header lacks column(s) {', '.join(map(repr, missing))}")
    if table.empty:
        raise DataError(f"{path}: no rows after the header")
    rows, ratings, splits = [], [], []
    # Line 1 is the header; TSV rows never span lines.
    for lineno, (row, rating, split) in enumerate(zip(table[row_column], table["rating"], table["split"]), start=2):
        where = f"{path}: line {lineno}"
        row_number = _integer(row)
        if row_number is None or row_number < 0:
            raise DataError(f"{where}: field '{row_column}'={row!r} is not a row number")
        if split not in _SPLIT_NAMES:
            raise DataError(f"{where}: field 'split'={split!r} is not one of {', '.join(_SPLIT_NAMES)}")
        rows.append(row_number)
        ratings.append(_rating(rating, where=where, field="rating"))
        splits.append(_SPLIT_NAMES[split])
    out = table.drop(columns=[row_column, "rating", "split"])
    out.insert(0, "row", rows)
    out.insert(1, "rating", ratings)
    out.insert(2, "split", splits)
    duplicated = out["row"].duplicated()
    if duplicated.any():
        first = int(duplicated.to_numpy().argmax())
        raise DataError(f"{path}: line {first + 2}: row {out['row'].iat[first]} is listed twice")
    return out


def _join(
    prefix: str,
    data: pd.DataFrame,
    split_table: pd.DataFrame,
    *,
    data_path: Path,
    split_path: Path,
    text_field: str,
) -> pd.DataFrame:
    """Keep the data rows listed in the split table and check their ratings.

    ``data`` has columns ``row``, ``rating``, ``text`` and ``where`` (the
    location of the row in ``data_path`` for messages).
    """
    merged = split_table.merge(
        data, on="row", how="left", suffixes=("_split", ""), validate="one_to_one", indicator=True
    )
    absent = merged["_merge"] == "left_only"
    if absent.any():
        row = int(merged.loc[absent, "row"].iat[0])
        raise DataError(f"{split_path}: row {row} is not in {data_path} ({int(absent.sum())} listed rows missing)")
    for row in merged.itertuples(index=False):
        if row.rating != row.rating_split:
            raise DataError(
                f"{row.where}: field 'rating'={row.rating} differs from rating {row.rating_split} "
                f"listed for row {row.row} in {split_path}"
            )
        if not row.text.strip():
            raise DataError(f"{row.where}: field '{text_field}' is empty, but {split_path} lists row {row.row}")
    merged = merged.sort_values("row", kind="stable").reset_index(drop=True)
    return pd.DataFrame(
        {
            "id": prefix + "-" + merged["row"].astype(str),
            "split": merged["split"],
            "label": merged["rating"].astype("int64"),
            "text": merged["text"],
        }
    )[_PREPARED_COLUMNS]


def prepare_clothing(csv_path: str | os.PathLike, split_path: str | os.PathLike) -> pd.DataFrame:
    """Prepare the Women's E-Commerce Clothing Reviews corpus.

    Parameters
    ----------
    csv_path : path-like
        ``womens_clothing_ecommerce_reviews.csv`` (UTF-8, RFC-4180 quoting;
        first column is the row id, label ``Rating``, text ``Review Text``).
    split_path : path-like
        ``split_suggested.tsv`` with columns ``row_id``, ``rating``, ``split``.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"clothing-<row id>"``), ``split`` (train/dev/test),
        ``label`` (int stars 1-5) and ``text``; the listed rows only, by row id.

    Raises
    ------
    DataError
        If a file cannot be parsed, a rating is not an integer 1-5, a listed
        row is missing, has no text or a different rating in the CSV.
    """
    csv_path, split_path = Path(csv_path), Path(split_path)
    split_table = _read_split(split_path, "row_id")
    try:
        table = pd.read_csv(csv_path, dtype=str, keep_default_na=False, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise DataError(f"{csv_path}: file is empty, expected a header line") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as exc:
        raise DataError(f"{csv_path}: cannot parse as CSV: {exc}") from None
    missing = [c for c in ("Review Text", "Rating") if c not in table.columns]
    if missing:
        raise DataError(f"{csv_path}: header lacks column(s) {', '.join(map(repr, missing))}")
    row_column = table.columns[0]
    rows, ratings, wheres = [], [], []
    for position, (row, rating) in enumerate(zip(table[row_column], table["Rating"])):
        row_number = _integer(row)
        if row_number is None:
            raise DataError(f"{csv_path}: data row {position + 1}: first (row id) field={row!r} is not an integer")
        where = f"{csv_path}: row_id {row_number}"
        rows.append(row_number)
        ratings.append(_rating(rating, where=where, field="Rating"))
        wheres.append(where)
    data = pd.DataFrame({"row": rows, "rating": ratings, "text": table["Review Text"], "where": wheres})
    if data["row"].duplicated().any():
        row = int(data.loc[data["row"].duplicated(), "row"].iat[0])
        raise DataError(f"{csv_path}: row_id {row} occurs twice")
    return _join("clothing", data, split_table, data_path=csv_path, split_path=split_path, text_field="Review Text")


def _read_jsonl(path: Path) -> pd.DataFrame:
    rows: list[dict] = []
    seen: set[int] = set()
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{path}: cannot read file: {exc}") from None
    with handle:
        try:
            for lineno, line in enumerate(handle, start=1):
                where = f"{path}: line {lineno}"
                if not line.strip():
                    raise DataError(f"{where}: empty line, expected a JSON object")
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{where}: malformed JSON at column {exc.colno}: {exc.msg}") from None
                if not isinstance(record, dict):
                    raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}")
                for field in ("row", "review_id", "rating", "text"):
                    if field not in record:
                        raise DataError(f"{where}: field '{field}' is missing")
                row = record["row"]
                if isinstance(row, bool) or not isinstance(row, int) or row < 0:
                    raise DataError(f"{where}: field 'row'={record['row']!r} is not a row number")
                if row in seen:
                    raise DataError(f"{where}: row {row} occurs twice")
                seen.add(row)
                if not isinstance(record["text"], str):
                    raise DataError(f"{where}: field 'text' is not a string")
                if isinstance(record["rating"], str):
                    raise DataError(f"{where}: field 'rating'={record['rating']!r} is not a number")
                rows.append(
                    {
                        "row": row,
                        "review_id": str(record["review_id"]),
                        # 0 marks a review without an overall rating; the split file omits them.
                        "rating": _rating(record["rating"], where=where, field="rating", low=0),
                        "text": record["text"],
                        "where": where,
                    }
                )
        except UnicodeDecodeError as exc:
            raise DataError(f"{path}: not valid UTF-8: {exc}") from None
    if not rows:
        raise DataError(f"{path}: file is empty, expected one JSON object per line")
    return pd.DataFrame(rows)


def prepare_hotel(jsonl_path: str | os.PathLike, split_path: str | os.PathLike) -> pd.DataFrame:
    """Prepare the 5,000-review TripAdvisor sample of Wang, Lu & Zhai (2011).

    Parameters
    ----------
    jsonl_path : path-like
        ``reviews.jsonl``: one object per line with ``row``, ``review_id``,
        ``rating`` (0-5, 0 = no rating) and ``text``.
    split_path : path-like
        ``split_suggested.tsv`` with columns ``row``, ``review_id``,
        ``rating``, ``split``.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"hotel-<row>"``), ``split`` (train/dev/test),
        ``label`` (int stars 1-5) and ``text``; the listed rows only, by row.

    Raises
    ------
    DataError
        If a line is not valid JSON or lacks a field, a rating is not an
        integer in range, or a listed row is missing, has no text, or a
        different rating or review id in the JSONL.
    """
    jsonl_path, split_path = Path(jsonl_path), Path(split_path)
    split_table = _read_split(split_path, "row")
    data = _read_jsonl(jsonl_path)
    if "review_id" in split_table.columns:
        ids = split_table[["row", "review_id"]].merge(
            data[["row", "review_id", "where"]], on="row", suffixes=("_split", "")
        )
        differs = ids["review_id"] != ids["review_id_split"]
        if differs.any():
            bad = ids[differs].iloc[0]
            raise DataError(
                f"{bad['where']}: field 'review_id'={bad['review_id']!r} differs from "
                f"{bad['review_id_split']!r} listed for row {bad['row']} in {split_path}"
            )
    return _join(
        "hotel",
        data.drop(columns="review_id"),
        split_table.drop(columns="review_id", errors="ignore"),
        data_path=jsonl_path,
        split_path=split_path,
        text_field="text",
    )


def parse_clothing(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of the clothing reviews: :func:`prepare_clothing` of ``(reviews csv, split tsv)``.

    ``dev_fraction`` and ``seed`` are not used: the suggested split has dev rows.
    """
    csv_path, split_path = paths
    return prepare_clothing(csv_path, split_path)


def parse_hotel(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of the hotel reviews: :func:`prepare_hotel` of ``(reviews jsonl, split tsv)``.

    ``dev_fraction`` and ``seed`` are not used: the suggested split has dev rows.
    """
    jsonl_path, split_path = paths
    return prepare_hotel(jsonl_path, split_path)
