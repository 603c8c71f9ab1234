"""Reuters-21578 (Distribution 1.0) SGML files and the ModApte split.

The SGML is not well-formed XML (bare ``&#3;`` entities, ``<`` inside
``<UNKNOWN>``), so documents and fields are cut out with regular
expressions.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from kernbench.data.registry import REUTERS_CATEGORIES
from kernbench.errors import DataError

#: The ten categories of the Fisher paper's Table 1 (the registry entry's categories).
TOP10 = REUTERS_CATEGORIES

_OPEN_RE = re.compile(r"<REUTERS\b([^>]*)>")
_CLOSE = "</REUTERS>"
_ATTR_RE = re.compile(r'([A-Za-z]+)\s*=\s*"([^"]*)"')
_TOPICS_RE = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.DOTALL)
_D_RE = re.compile(r"<D>(.*?)</D>", re.DOTALL)
_TEXT_RE = re.compile(r"<TEXT\b[^>]*>(.*?)</TEXT>", re.DOTALL)
_TITLE_RE = re.compile(r"<TITLE>(.*?)</TITLE>", re.DOTALL)
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.DOTALL)
_HEADER_RE = re.compile(r"<(TITLE|DATELINE|AUTHOR)>.*?</\1>", re.DOTALL)
# Unescaping &#2;, &#3;, &#5;, &#22;, &#31;, &#127;… yields control
# characters (wire-service framing); keep only newline and tab.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_READ_COLUMNS = ["newid", "lewissplit", "topics_attr", "topics", "title", "body"]


def _clean(raw: str) -> str:
    return _CONTROL_RE.sub("", html.unescape(raw)).strip()


def _body(document: str) -> str:
    """Text of ``<BODY>``; without one (BRIEF/UNPROC texts), the ``<TEXT>``
    content minus its title, dateline and author."""
    match = _BODY_RE.search(document)
    if match:
        return _clean(match.group(1))
    match = _TEXT_RE.search(document)
    if match is None:
        return ""
    return _clean(_HEADER_RE.sub("", match.group(1)))


def _read_file(path: Path) -> list[dict]:
    try:
        # Latin-1: the files are ASCII apart from one stray byte in reut2-017.
        content = path.read_text(encoding="latin-1")
    except OSError as exc:
        raise DataError(f"{path}: cannot read file: {exc}") from None
    rows: list[dict] = []
    pos = 0
    line = 1
    while (match := _OPEN_RE.search(content, pos)) is not None:
        line += content.count("\n", pos, match.start())
        close = content.find(_CLOSE, match.end())
        following = _OPEN_RE.search(content, match.end())
        if close < 0 or (following is not None and following.start() < close):
            raise DataError(f"{path}: line {line}: <REUTERS> document has no closing {_CLOSE}")
        attrs = dict(_ATTR_RE.findall(match.group(1)))
        newid = attrs.get("NEWID")
        if newid is None:
            raise DataError(f"{path}: line {line}: <REUTERS> tag has no NEWID attribute")
        if not newid.isdigit():
            raise DataError(f"{path}: line {line}: NEWID={newid!r} is not a non-negative integer")
        document = content[match.end() : close]
        topics_match = _TOPICS_RE.search(document)
        title_match = _TITLE_RE.search(document)
        rows.append(
            {
                "newid": int(newid),
                "lewissplit": attrs.get("LEWISSPLIT", ""),
                "topics_attr": attrs.get("TOPICS", ""),
                "topics": [d.strip() for d in _D_RE.findall(topics_match.group(1))] if topics_match else [],
                "title": _clean(title_match.group(1)) if title_match else "",
                "body": _body(document),
            }
        )
        line += content.count("\n", match.start(), close + len(_CLOSE))
        pos = close + len(_CLOSE)
    if not rows:
        raise DataError(f"{path}: no <REUTERS> documents found")
    return rows


def read_sgml(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Read every ``<REUTERS>`` document of the given SGML files.

    Parameters
    ----------
    paths : iterable of path-like
        ``reut2-NNN.sgm`` files (latin-1).

    Returns
    -------
    pandas.DataFrame
        Columns ``newid`` (int), ``lewissplit``, ``topics_attr`` (the TOPICS
        attribute: YES/NO/BYPASS), ``topics`` (list of str, the ``<D>``
        entries of ``<TOPICS>``), ``title`` and ``body`` (entities decoded,
        control characters removed, stripped), in file order.

    Raises
    ------
    DataError
        If a file cannot be read or holds no document, a document is not
        closed, lacks a NEWID, or a NEWID occurs twice.
    """
    rows: list[dict] = []
    seen: dict[int, Path] = {}
    for path in map(Path, paths):
        for row in _read_file(path):
            if row["newid"] in seen:
                raise DataError(f"{path}: NEWID {row['newid']} already occurs in {seen[row['newid']]}")
            seen[row["newid"]] = path
            rows.append(row)
    if not rows:
        raise DataError("no Reuters SGML files given")
    return pd.DataFrame(rows, columns=_READ_COLUMNS).astype({"newid": "int64"})


def prepare(paths: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Build the ModApte split of Reuters-21578.

    ModApte keeps the documents with ``LEWISSPLIT`` TRAIN or TEST and
    ``TOPICS="YES"``, including those whose ``<TOPICS>`` list is empty.

    Parameters
    ----------
    paths : iterable of path-like
        All 22 ``reut2-NNN.sgm`` files.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"reuters-<newid>"``), ``split`` (train/test),
        ``label`` (list of distinct topic names in file order, possibly
        empty), ``title``, ``body``
        and ``text`` (title and body joined by a newline, stripped), sorted
        by NEWID.

    Raises
    ------
    DataError
        If a file is malformed (see :func:`read_sgml`).
    """
    docs = read_sgml(paths)
    keep = docs["lewissplit"].isin(["TRAIN", "TEST"]) & (docs["topics_attr"] == "YES")
    docs = docs[keep].sort_values("newid", kind="stable").reset_index(drop=True)
    return pd.DataFrame(
        {
            "id": "reuters-" + docs["newid"].astype(str),
            "split": docs["lewissplit"].str.lower(),
            # One test document lists "trade" twice and one training document
            # "corn" twice; a label set names each topic once.
            "label": [list(dict.fromkeys(topics)) for topics in docs["topics"]],
            "title": docs["title"],
            "body": docs["body"],
            "text": (docs["title"] + "\n" + docs["body"]).str.strip(),
        }
    )


def parse(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of Reuters-21578: :func:`prepare` of the 22 ``reut2-NNN.sgm`` files.

    ``dev_fraction`` and ``seed`` are not used: the ModApte split has no dev documents.
    """
    return prepare(paths)
