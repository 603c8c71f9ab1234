"""SemEval-2014 Task 4 aspect-term polarity data (laptops, restaurants).

The XML holds ``<sentence id><text/><aspectTerms><aspectTerm term polarity
from to/>…`` elements. Each aspect term becomes one example; the training
file is split into train and dev by whole sentences.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd

from kernbench.data.dev_split import hold_out_dev
from kernbench.errors import DataError

POLARITIES = ("positive", "negative", "neutral", "conflict")

_TOKEN_RE = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")

_READ_COLUMNS = ["sentence_id", "text", "aspect_term", "aspect_from", "aspect_to", "label"]
_PREPARED_COLUMNS = [
    "id",
    "split",
    "label",
    "text",
    "tokens",
    "aspect_mask",
    "aspect_term",
    "aspect_from",
    "aspect_to",
    "sentence_id",
]


def tokenize(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Split text into word and punctuation tokens with character spans.

    Parameters
    ----------
    text : str
        Sentence to tokenise.

    Returns
    -------
    tokens : list of str
        Words (letters/digits, with internal hyphens or apostrophes) and
        single punctuation characters, in order.
    spans : list of tuple of int
        ``(start, end)`` character offsets of each token, end exclusive.
    """
    tokens: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in _TOKEN_RE.finditer(text):
        tokens.append(match.group())
        spans.append(match.span())
    return tokens, spans


#: Clitics split off as GloVe's (Stanford PTB) tokeniser splits them: ``don't`` -> ``do n't``, ``it's`` -> ``it 's``.
_CLITIC_RE = re.compile(r"^(?P<stem>\w+?)(?P<clitic>n['’]t|['’](?:s|re|ve|ll|d|m))$", re.IGNORECASE)


def split_contractions(tokens, mask=None) -> tuple[list[str], list[int] | None]:
    """Split contractions as the PTB tokeniser of GloVe's corpora does (``don't`` -> ``do``, ``n't``).

    A token ending in ``n't`` or in ``'s``, ``'re``, ``'ve``, ``'ll``, ``'d``, ``'m`` (straight or curly
    apostrophe) becomes its stem and its clitic, the clitic written with a straight apostrophe
    (``can't`` -> ``ca n't``, ``won't`` -> ``wo n't``, ``laptop's`` -> ``laptop 's``); other tokens stay whole.

    Parameters
    ----------
    tokens : sequence of str
    mask : sequence of int, optional
        Aspect mask of the tokens; both parts of a split token keep its value.

    Returns
    -------
    tokens : list of str
    mask : list of int or None
    """
    out, out_mask = [], None if mask is None else []
    flags = [0] * len(tokens) if mask is None else list(mask)
    if len(flags) != len(tokens):
        raise ValueError(f"aspect mask of length {len(flags)} for {len(tokens)} tokens")
    for token, flag in zip(tokens, flags):
        match = _CLITIC_RE.match(str(token))
        parts = [match["stem"], match["clitic"].replace("’", "'")] if match else [str(token)]
        out += parts
        if out_mask is not None:
            out_mask += [int(flag)] * len(parts)
    return out, out_mask


def _offset(value: str | None, *, where: str, name: str) -> int:
    if value is None:
        raise DataError(f"{where}: aspectTerm has no '{name}' attribute")
    try:
        return int(value)
    except ValueError:
        raise DataError(f"{where}: aspectTerm attribute '{name}'={value!r} is not an integer") from None


def read_xml(path: str | os.PathLike) -> pd.DataFrame:
    """Read one SemEval-2014 Task 4 XML file, one row per aspect term.

    Sentences without aspect terms contribute no rows.

    Parameters
    ----------
    path : path-like
        ``*_Train_v2.xml`` or ``*_Test_Gold.xml`` file.

    Returns
    -------
    pandas.DataFrame
        Columns ``sentence_id`` (str), ``text``, ``aspect_term``,
        ``aspect_from`` (int), ``aspect_to`` (int, exclusive) and ``label``
        (one of :data:`POLARITIES`), in file order.

    Raises
    ------
    DataError
        If the file cannot be read or parsed, or an aspect term lacks an
        attribute, has an unknown polarity, or has offsets that are not
        integers, fall outside its sentence or do not delimit the term.
    """
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        line, column = exc.position
        raise DataError(f"{path}: malformed XML at line {line}, column {column}: {exc}") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read file: {exc}") from None
    if root.tag != "sentences":
        raise DataError(f"{path}: root element is <{root.tag}>, expected <sentences>")

    rows: list[dict] = []
    seen_ids: set[str] = set()
    for position, sentence in enumerate(root.iter("sentence")):
        sentence_id = sentence.get("id")
        if sentence_id is None:
            raise DataError(f"{path}: sentence number {position + 1} has no 'id' attribute")
        where = f"{path}: sentence id={sentence_id}"
        if sentence_id in seen_ids:
            raise DataError(f"{where}: duplicate sentence id")
        seen_ids.add(sentence_id)
        text_element = sentence.find("text")
        if text_element is None or text_element.text is None:
            raise DataError(f"{where}: sentence has no <text>")
        text = text_element.text
        for term_element in sentence.iterfind("aspectTerms/aspectTerm"):
            term = term_element.get("term")
            if term is None:
                raise DataError(f"{where}: aspectTerm has no 'term' attribute")
            polarity = term_element.get("polarity")
            if polarity is None:
                raise DataError(f"{where}: aspectTerm {term!r} has no 'polarity' attribute")
            if polarity not in POLARITIES:
                raise DataError(
                    f"{where}: aspectTerm {term!r} attribute 'polarity'={polarity!r} "
                    f"is not one of {', '.join(POLARITIES)}"
                )
            start = _offset(term_element.get("from"), where=where, name="from")
            end = _offset(term_element.get("to"), where=where, name="to")
            if not 0 <= start < end <= len(text):
                raise DataError(
                    f"{where}: aspectTerm {term!r} attributes 'from'={start}, 'to'={end} "
                    f"are outside the sentence (length {len(text)}) or empty"
                )
            if text[start:end] != term:
                raise DataError(
                    f"{where}: aspectTerm attribute 'term'={term!r} does not match the "
                    f"sentence text at 'from'={start}, 'to'={end} ({text[start:end]!r})"
                )
            rows.append(
                {
                    "sentence_id": sentence_id,
                    "text": text,
                    "aspect_term": term,
                    "aspect_from": start,
                    "aspect_to": end,
                    "label": polarity,
                }
            )
    if not seen_ids:
        raise DataError(f"{path}: no <sentence> elements")
    frame = pd.DataFrame(rows, columns=_READ_COLUMNS)
    return frame.astype({"aspect_from": "int64", "aspect_to": "int64"})


def _with_tokens(frame: pd.DataFrame, *, path: Path) -> pd.DataFrame:
    """Add ``tokens`` and ``aspect_mask`` columns."""
    tokens_column: list[list[str]] = []
    masks: list[list[int]] = []
    for row in frame.itertuples(index=False):
        tokens, spans = tokenize(row.text)
        # A token belongs to the aspect if its span overlaps [from, to) at all,
        # so truncated terms such as "curry sauc" still mark "sauce".
        mask = [int(s < row.aspect_to and e > row.aspect_from) for s, e in spans]
        if not any(mask):
            raise DataError(
                f"{path}: sentence id={row.sentence_id}: aspectTerm {row.aspect_term!r} "
                f"(from={row.aspect_from}, to={row.aspect_to}) covers no token"
            )
        tokens_column.append(tokens)
        masks.append(mask)
    frame = frame.copy()
    frame["tokens"] = tokens_column
    frame["aspect_mask"] = masks
    return frame


def dev_mask(frame: pd.DataFrame, *, dev_fraction: float, seed: int, path: Path | str) -> np.ndarray:
    """Boolean mask of the rows held out as dev, whole sentences at a time (:func:`~kernbench.data.dev_split.hold_out_dev`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Training-file rows with ``label`` and ``sentence_id``.
    dev_fraction : float
        The first of ``round(1 / dev_fraction)`` stratified, sentence-grouped folds is dev.
    seed : int
        Seed of the fold shuffling.
    path : path-like
        Named in errors.

    Returns
    -------
    numpy.ndarray of bool
    """
    return hold_out_dev(
        frame["label"].to_numpy(), groups=frame["sentence_id"].to_numpy(), group_name="sentences with aspect terms",
        dev_fraction=dev_fraction, seed=seed, path=path,
    )  # fmt: skip


def prepare(
    train_xml: str | os.PathLike,
    test_xml: str | os.PathLike,
    *,
    dev_fraction: float,
    seed: int,
) -> pd.DataFrame:
    """Build the train/dev/test examples of one SemEval-2014 domain.

    Parameters
    ----------
    train_xml, test_xml : path-like
        Training and gold test XML files of the same domain.
    dev_fraction : float
        Approximate share of the training file held out as dev; the training
        file is cut into ``round(1 / dev_fraction)`` stratified, sentence-grouped
        folds and the first fold becomes dev.
    seed : int
        Seed of the fold shuffling.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"<file>-<sentence id>-<k>"`` with ``file`` train or
        test and ``k`` the term's position in its sentence), ``split``
        (train/dev/test), ``label``, ``text``, ``tokens`` (list of str),
        ``aspect_mask`` (list of int, 1 on tokens overlapping the term),
        ``aspect_term``, ``aspect_from``, ``aspect_to`` and ``sentence_id``.
        Training-file rows come first, then test rows, each in file order.

    Raises
    ------
    DataError
        If a file is malformed or an aspect term covers no token.
    ValueError
        If ``dev_fraction`` is not in (0, 1) or leaves fewer than two folds.
    """
    parts = []
    for source, path in (("train", Path(train_xml)), ("test", Path(test_xml))):
        frame = _with_tokens(read_xml(path), path=path)
        if frame.empty:
            raise DataError(f"{path}: no aspect terms")
        position = frame.groupby("sentence_id", sort=False).cumcount()
        frame["id"] = source + "-" + frame["sentence_id"] + "-" + position.astype(str)
        if source == "train":
            dev = dev_mask(frame, dev_fraction=dev_fraction, seed=seed, path=path)
            frame["split"] = np.where(dev, "dev", "train")
        else:
            frame["split"] = "test"
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)[_PREPARED_COLUMNS]


def parse(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of a SemEval-2014 domain: :func:`prepare` of its ``(train_xml, test_xml)``."""
    train_xml, test_xml = paths
    return prepare(train_xml, test_xml, dev_fraction=dev_fraction, seed=seed)
