"""Stanford Sentiment Treebank: PTB-bracketed trees, one per line.

Each line is a labelled tree such as ``(3 (2 It) (4 (4 works) (2 .)))``.
Only the root label (0-4) and the leaves are kept.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from kernbench.data import SPLITS
from kernbench.errors import DataError

# Only ASCII space and parentheses separate tokens: one leaf in train.txt
# contains U+00A0, which \s or str.split() would break apart.
_LEXEME_RE = re.compile(r"[()]|[^ ()]+")
_LABELS = frozenset("01234")


class _Parser:
    """Recursive-descent parser of one bracketed tree.

    Grammar: ``tree := "(" LABEL (WORD | tree+) ")"`` with LABEL a digit 0-4.
    """

    def __init__(self, line: str, *, where: str) -> None:
        self.where = where
        self.lexemes = [(m.group(), m.start() + 1) for m in _LEXEME_RE.finditer(line)]
        self.pos = 0
        self.end_column = len(line) + 1
        self.spans: list[tuple[int, int, int]] = []  # (label, first leaf, one past the last leaf) of every node

    def _fail(self, message: str) -> DataError:
        column = self.lexemes[self.pos][1] if self.pos < len(self.lexemes) else self.end_column
        return DataError(f"{self.where}, column {column}: {message}")

    def _peek(self) -> str | None:
        return self.lexemes[self.pos][0] if self.pos < len(self.lexemes) else None

    def _expect(self, lexeme: str, context: str) -> None:
        found = self._peek()
        if found == lexeme:
            self.pos += 1
            return
        if found is None:
            raise self._fail(f"unbalanced brackets: expected {lexeme!r} {context}, found end of line")
        if found in "()":
            raise self._fail(f"unbalanced brackets: expected {lexeme!r} {context}, found {found!r}")
        raise self._fail(f"expected {lexeme!r} {context}, found the word {found!r}")

    def tree(self, leaves: list[str]) -> int:
        """Parse one subtree, append its leaves and return its label."""
        self._expect("(", "to open a node")
        label = self._peek()
        if label is None or label in "()":
            raise self._fail("missing label after '('")
        if label not in _LABELS:
            raise self._fail(f"label {label!r} is not one of 0-4")
        self.pos += 1
        first_leaf = len(leaves)
        following = self._peek()
        if following == "(":
            while self._peek() == "(":
                self.tree(leaves)
        elif following is None or following == ")":
            raise self._fail(f"node labelled {label} has neither a word nor children")
        else:
            leaves.append(following)
            self.pos += 1
        self._expect(")", f"to close the node labelled {label}")
        self.spans.append((int(label), first_leaf, len(leaves)))
        return int(label)

    def parse(self) -> tuple[int, list[str]]:
        if not self.lexemes:
            raise DataError(f"{self.where}: empty line, expected a tree")
        leaves: list[str] = []
        try:
            label = self.tree(leaves)
        except RecursionError:
            raise DataError(f"{self.where}: tree nested too deeply") from None
        if self.pos != len(self.lexemes):
            extra = self.lexemes[self.pos][0]
            if extra == ")":
                raise self._fail("unbalanced brackets: extra ')' after the tree")
            raise self._fail(f"trailing text {extra!r} after the tree")
        return label, leaves


def parse_tree(line: str, *, path: str | os.PathLike, lineno: int) -> tuple[int, list[str]]:
    """Parse one bracketed tree.

    Parameters
    ----------
    line : str
        The tree, without or with its line terminator.
    path : path-like
        File the line comes from (for error messages).
    lineno : int
        1-based line number in ``path`` (for error messages).

    Returns
    -------
    label : int
        Root label, 0 (very negative) to 4 (very positive).
    leaves : list of str
        The words at the leaves, left to right, unchanged (PTB escapes such
        as ``-LRB-`` and ``\\/`` are kept).

    Raises
    ------
    DataError
        On an empty line, unbalanced brackets, a missing or invalid label, or
        text after the closing bracket.
    """
    line = line.rstrip("\r\n")
    return _Parser(line, where=f"{path}: line {lineno}").parse()


def read_trees(path: str | os.PathLike) -> pd.DataFrame:
    """Read an SST tree file.

    Parameters
    ----------
    path : path-like
        UTF-8 file with one tree per line.

    Returns
    -------
    pandas.DataFrame
        Columns ``label`` (int, root label), ``tokens`` (list of str) and
        ``text`` (tokens joined by single spaces), one row per line.

    Raises
    ------
    DataError
        If the file cannot be read, is not UTF-8, is empty, or a line is not
        a well-formed tree.
    """
    labels: list[int] = []
    tokens: list[list[str]] = []
    for lineno, line in _tree_lines(path):
        label, leaves = parse_tree(line, path=path, lineno=lineno)
        labels.append(label)
        tokens.append(leaves)
    return pd.DataFrame(
        {
            "label": pd.Series(labels, dtype="int64"),
            "tokens": tokens,
            "text": [" ".join(leaves) for leaves in tokens],
        }
    )


def read_phrases(path: str | os.PathLike) -> pd.DataFrame:
    """Every phrase of an SST tree file: one row per node of every tree, with the node's own label.

    Parameters
    ----------
    path : path-like
        UTF-8 file with one tree per line.

    Returns
    -------
    pandas.DataFrame
        Columns ``sentence`` (0-based line index), ``label`` (int 0-4) and
        ``tokens`` (the leaves under the node), nodes in post-order.

    Raises
    ------
    DataError
        As :func:`read_trees`.
    """
    sentence, labels, tokens = [], [], []
    for lineno, line in _tree_lines(path):
        parser = _Parser(line.rstrip("\r\n"), where=f"{path}: line {lineno}")
        _, leaves = parser.parse()
        for label, start, stop in parser.spans:
            sentence.append(lineno - 1)
            labels.append(label)
            tokens.append(leaves[start:stop])
    return pd.DataFrame(
        {"sentence": pd.Series(sentence, dtype="int64"), "label": pd.Series(labels, dtype="int64"), "tokens": tokens}
    )


def _tree_lines(path):
    """``(line number, line)`` of a tree file, refusing an unreadable, non-UTF-8 or empty file."""
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read file: {exc}") from None
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline terminates the last line
    if not lines:
        raise DataError(f"{path}: file is empty, expected one tree per line")
    return enumerate(lines, start=1)


def prepare(
    train_path: str | os.PathLike,
    dev_path: str | os.PathLike,
    test_path: str | os.PathLike,
) -> pd.DataFrame:
    """Combine the three SST files into one frame.

    Parameters
    ----------
    train_path, dev_path, test_path : path-like
        ``train.txt``, ``dev.txt`` and ``test.txt``.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"<split>-<line index from 0>"``), ``split``,
        ``label`` (int 0-4), ``tokens`` and ``text``; train, dev, then test
        rows, each in file order.

    Raises
    ------
    DataError
        If a file is malformed (see :func:`read_trees`).
    """
    parts = []
    for split, path in zip(SPLITS, (train_path, dev_path, test_path)):
        frame = read_trees(path)
        frame.insert(0, "split", split)
        frame.insert(0, "id", [f"{split}-{i}" for i in range(len(frame))])
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)[["id", "split", "label", "tokens", "text"]]


def parse(paths, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """The registry parser of SST: :func:`prepare` of its ``(train, dev, test)`` files.

    ``dev_fraction`` and ``seed`` are not used: SST has a dev split of its own.
    """
    train_path, dev_path, test_path = paths
    return prepare(train_path, dev_path, test_path)
