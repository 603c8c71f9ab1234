"""Fisher-kernel feature maps of Saunders, Shawe-Taylor & Vinokourov: n-gram and FSA features.

Documents are character sequences. :func:`normalise_text` lower-cases them
and collapses every run of whitespace (spaces, tabs, newlines) into a single
space, stripping both ends; punctuation and digits are kept. The alphabet A
is the set of characters of the normalised training documents; a test
character outside it maps to a code no training string contains.

Every feature map is the Fisher score of a Markov model with the identity as
Fisher information: a transition u → x used ``tf`` times in a document gets
the value ``tf / p_u(x)`` (Eq. 1), or ``tf · (−ln p_u(x))`` under the
reparametrisation p = exp(−exp(−t)). Three choices of p:

``uniform``
    p_u(x) = 1/|A| for every state: the feature is |A|·tf, so the Fisher
    kernel is |A|² times the plain n-gram (or transition-count) kernel.
``nonuniform``
    tf / p_u(x), p by Eq. 2 from the training counts f_{u,x} with initial
    count c: p_u(x) = (f_{u,x} + c) / (|A| c + Σ_x' f_{u,x'}).
``ln``
    tf · (−ln p_u(x)), p by Eq. 2.

Feature vectors are L2-normalised (``normalise=True``) and sparse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from kernbench.kernels.fsa import run_fsa

WEIGHTINGS = ("uniform", "nonuniform", "ln")

#: Code of characters outside the training alphabet (never part of a training string).
UNKNOWN = 255

_WHITESPACE_RE = re.compile(r"\s+")


def normalise_text(text: str, *, lowercase: bool = True, collapse_whitespace: bool = True) -> str:
    """Return the character sequence a document is modelled as.

    Parameters
    ----------
    text : str
        Raw document (title + newline + body for Reuters).
    lowercase : bool, optional
        Lower-case every character.
    collapse_whitespace : bool, optional
        Replace each run of whitespace by one space and strip both ends.

    Returns
    -------
    str
    """
    if lowercase:
        text = text.lower()
    if collapse_whitespace:
        text = _WHITESPACE_RE.sub(" ", text).strip()
    return text


@dataclass(frozen=True)
class Alphabet:
    """Characters of the training corpus, coded 1..|A| in sorted order."""

    symbols: str

    @classmethod
    def from_texts(cls, texts) -> Alphabet:
        """The alphabet of ``texts``.

        Raises
        ------
        ValueError
            If there are more than 254 distinct characters (codes are bytes).
        """
        symbols = "".join(sorted(set().union(*map(set, texts)))) if len(texts) else ""
        if len(symbols) >= UNKNOWN:
            raise ValueError(f"the training corpus has {len(symbols)} distinct characters; at most 254 are supported")
        return cls(symbols)

    def __len__(self) -> int:
        return len(self.symbols)

    def encode(self, text: str) -> np.ndarray:
        """Codes of the characters of ``text`` (uint8; :data:`UNKNOWN` outside the alphabet)."""
        return self.encode_all([text])[0]

    def encode_all(self, texts) -> list[np.ndarray]:
        """:meth:`encode` of every text, sharing one lookup table."""
        size = max([0x10000] + [ord(ch) + 1 for text in texts for ch in set(text) if ord(ch) > 0xFFFF])
        table = np.full(size, UNKNOWN, dtype=np.uint8)
        table[[ord(ch) for ch in self.symbols]] = np.arange(1, len(self.symbols) + 1, dtype=np.uint8)
        return [table[np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)] for text in texts]


def _check_initial_count(where: str, c) -> None:
    """Refuse an initial count of Eq. 2 that is not a finite number above 0 (NaN fails every comparison)."""
    try:
        value = float(c)
    except (TypeError, ValueError):
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{where}: the initial count c must be a finite number > 0, got c={c!r}")


def _check_training_corpus(where: str, train, min_length: int) -> None:
    """Refuse a training corpus with no document of ``min_length`` symbols: it gives no feature at all."""
    if len(train) == 0:
        raise ValueError(f"{where}: the training corpus (train) is empty; its features need at least one document")
    longest = max(len(doc) for doc in train)
    if longest < min_length:
        raise ValueError(
            f"{where}: no training document (train) has {min_length} symbol(s) (the longest has {longest}), "
            "so the model has no transition to count"
        )


def transition_probabilities(f_ux, f_u, *, c: float, alphabet_size: int) -> np.ndarray:
    """Eq. 2: p_u(x) = (f_{u,x} + c) / (|A| c + Σ_x' f_{u,x'}).

    Parameters
    ----------
    f_ux : array-like
        Training count of each transition.
    f_u : array-like
        Training count of all transitions leaving its source state.
    c : float
        Initial count (> 0).
    alphabet_size : int
        |A|.
    """
    _check_initial_count("transition_probabilities", c)
    return (np.asarray(f_ux, dtype=float) + c) / (alphabet_size * c + np.asarray(f_u, dtype=float))


def fisher_weights(weighting: str, *, f_ux, f_u, c: float, alphabet_size: int) -> np.ndarray:
    """Per-transition factor multiplying the term frequency in the Fisher score.

    Parameters
    ----------
    weighting : {"uniform", "nonuniform", "ln"}
        ``|A|`` (= 1/p with p uniform), ``1/p`` or ``−ln p``, p from Eq. 2.
    f_ux, f_u, c, alphabet_size
        As in :func:`transition_probabilities`.

    Returns
    -------
    numpy.ndarray of float
    """
    f_ux = np.asarray(f_ux)
    if weighting == "uniform":
        return np.full(f_ux.shape, float(alphabet_size))
    p = transition_probabilities(f_ux, f_u, c=c, alphabet_size=alphabet_size)
    if weighting == "nonuniform":
        return 1.0 / p
    if weighting == "ln":
        return -np.log(p)
    raise ValueError(f"unknown weighting {weighting!r}; expected one of {', '.join(WEIGHTINGS)}")


@dataclass
class Features:
    """Sparse train/test feature matrices and what describes them.

    Attributes
    ----------
    train, test : scipy.sparse.csr_matrix
        One row per document, one column per feature kept from training.
    info : dict
        Sizes worth reporting (features, |A|, |Σ_t|...).
    """

    train: sp.csr_matrix
    test: sp.csr_matrix
    info: dict = field(default_factory=dict)


def _count_matrix(doc_of: np.ndarray, column: np.ndarray, n_docs: int, n_columns: int) -> sp.csr_matrix:
    """Documents × columns matrix of occurrence counts (``column`` < 0 is dropped)."""
    keep = column >= 0
    data = np.ones(int(keep.sum()), dtype=np.float64)
    matrix = sp.csr_matrix((data, (doc_of[keep], column[keep])), shape=(n_docs, n_columns))
    matrix.sum_duplicates()
    return matrix


def _lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Index of each key in ``sorted_keys``, -1 where absent."""
    if len(sorted_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    position = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.where(sorted_keys[position] == keys, position, -1).astype(np.int64)


def _split_rows(matrix: sp.csr_matrix, n_train: int) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    return matrix[:n_train].tocsr(), matrix[n_train:].tocsr()


def ngram_keys(docs: list[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every contiguous k-gram of every document, packed into an int64 (8 bits per symbol).

    Parameters
    ----------
    docs : list of numpy.ndarray of uint8
        Documents as symbol codes (>= 1).
    k : int
        n-gram length, 1..7.

    Returns
    -------
    doc_of, keys : numpy.ndarray of int64
        The document of each k-gram and its key; the key of ``ux`` shifted
        right by 8 bits is the key of its (k-1)-gram prefix ``u``.
    """
    if not 1 <= k <= 7:
        raise ValueError(f"n-gram length k must be in 1..7, got {k}")
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    text = np.zeros(int(lengths.sum()) + len(docs), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
    doc_at = np.full(text.size, -1, dtype=np.int64)
    for i, (start, d) in enumerate(zip(starts, docs)):
        text[start : start + len(d)] = d
        doc_at[start : start + len(d)] = i
    n = text.size - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = np.zeros(n, dtype=np.int64)
    valid = np.ones(n, dtype=bool)
    for m in range(k):
        window = text[m : m + n]
        keys = (keys << 8) | window
        valid &= window > 0  # no separator inside the window
    return doc_at[:n][valid], keys[valid]


@dataclass
class TransitionCounts:
    """What a Fisher feature map needs before its weighting: term frequencies and the Eq. 2 counts.

    Building these is the costly part (k-grams, or running F_t); :func:`weight_counts`
    then gives the features for any weighting and initial count c.

    Attributes
    ----------
    tf : scipy.sparse.csr_matrix
        Documents (training rows first) × transitions: how often each document takes each one.
    f_ux, f_u : numpy.ndarray
        Training count of each transition and of all transitions leaving its source state.
    n_train : int
        Number of training rows.
    columns : numpy.ndarray of int64
        Columns of ``tf`` kept as features after normalisation (those taken in training).
    alphabet_size : int
        |A|.
    info : dict
        Sizes worth reporting.
    """

    tf: sp.csr_matrix
    f_ux: np.ndarray
    f_u: np.ndarray
    n_train: int
    columns: np.ndarray
    alphabet_size: int
    info: dict = field(default_factory=dict)


def weight_counts(counts: TransitionCounts, *, weighting: str, c: float, normalise: bool = True) -> Features:
    """Fisher features from :class:`TransitionCounts`: tf times the weighting factor, L2-normalised.

    Parameters
    ----------
    counts : TransitionCounts
    weighting : {"uniform", "nonuniform", "ln"}
        See :func:`fisher_weights`.
    c : float
        Initial count of Eq. 2 (unused by ``uniform``).
    normalise : bool, optional
        L2-normalise every row (over all its transitions, before keeping :attr:`TransitionCounts.columns`).

    Returns
    -------
    Features
    """
    _check_initial_count("weight_counts", c)
    weights = fisher_weights(weighting, f_ux=counts.f_ux, f_u=counts.f_u, c=c, alphabet_size=counts.alphabet_size)
    matrix = counts.tf @ sp.diags(weights)
    if normalise:
        matrix = normalize(matrix, norm="l2")
    matrix = sp.csr_matrix(matrix)
    if len(counts.columns) != matrix.shape[1]:
        matrix = matrix[:, counts.columns]
    x_train, x_test = _split_rows(matrix, counts.n_train)
    return Features(x_train, x_test, dict(counts.info))


def ngram_counts(train: list[np.ndarray], test: list[np.ndarray], *, k: int, min_count: int, alphabet_size: int):
    """:class:`TransitionCounts` of the k-stage Markov model (Section 2): kept k-grams and their prefixes.

    Parameters
    ----------
    train, test : list of numpy.ndarray of uint8
        Documents as symbol codes; p and the kept features come from ``train``.
    k : int
        n-gram length (the paper: 5).
    min_count : int
        n-grams seen fewer times than this in the training corpus are pruned
        (the paper: 10); pruning precedes normalisation.
    alphabet_size : int
        |A|.

    Returns
    -------
    TransitionCounts
    """
    _check_training_corpus("ngram_counts", train, k)
    n_train = len(train)
    doc_of, keys = ngram_keys(list(train) + list(test), k)
    train_keys = keys[doc_of < n_train]
    vocab, counts = np.unique(train_keys, return_counts=True)
    # Σ_x f_{u,x}: training k-grams sharing the (k-1)-gram prefix u.
    prefixes, prefix_of = np.unique(vocab >> 8, return_inverse=True)
    prefix_counts = np.bincount(prefix_of, weights=counts)
    kept = counts >= min_count
    columns = vocab[kept]
    column = _lookup(columns, keys)
    tf = _count_matrix(doc_of, column, n_train + len(test), len(columns))
    info = {
        "alphabet_size": int(alphabet_size),
        "ngrams_seen": len(vocab),
        "features": len(columns),
        "states_seen": len(prefixes),
    }
    return TransitionCounts(
        tf, counts[kept], prefix_counts[prefix_of[kept]], n_train, np.arange(len(columns)), int(alphabet_size), info
    )


def ngram_features(
    train: list[np.ndarray],
    test: list[np.ndarray],
    *,
    k: int,
    min_count: int,
    weighting: str,
    c: float,
    alphabet_size: int,
    normalise: bool = True,
) -> Features:
    """n-gram Fisher features (Section 2) of a k-stage Markov model.

    Parameters
    ----------
    train, test, k, min_count, alphabet_size
        See :func:`ngram_counts`.
    weighting : {"uniform", "nonuniform", "ln"}
        See :func:`fisher_weights`.
    c : float
        Initial count of Eq. 2.
    normalise : bool, optional
        L2-normalise every row.

    Returns
    -------
    Features
    """
    _check_initial_count("ngram_features", c)
    _check_training_corpus("ngram_features", train, k)
    counts = ngram_counts(train, test, k=k, min_count=min_count, alphabet_size=alphabet_size)
    return weight_counts(counts, weighting=weighting, c=c, normalise=normalise)


def fsa_features(
    train: list[np.ndarray],
    test: list[np.ndarray],
    *,
    t: int,
    weighting: str,
    c: float,
    alphabet_size: int,
    max_state_length: int | None = None,
    normalise: bool = True,
) -> Features:
    """Fisher features of the frequent-set FSA F_t(S) (Sections 3–4).

    One feature per transition (u, x) used in the training documents, worth
    ``tf((u, x), d)`` times its weighting factor. The counts f_{u,x} of
    Eq. 2 leave out transitions from document-initial states, as the paper
    does; the features of a document count every transition it takes. A
    test document's vector is normalised over all its transitions, those
    never taken in training included (they are transitions of the model
    too), then restricted to the training columns.

    Parameters
    ----------
    train, test : list of numpy.ndarray of uint8
        Documents as symbol codes; Σ_t and p come from ``train``.
    t : int
        State frequency threshold (the paper: 10).
    weighting : {"uniform", "nonuniform", "ln"}
        See :func:`fisher_weights`.
    c : float
        Initial count of Eq. 2.
    alphabet_size : int
        |A|.
    max_state_length : int, optional
        Cap on the state length (``None``: no cap).
    normalise : bool, optional
        L2-normalise every row.

    Returns
    -------
    Features
    """
    _check_initial_count("fsa_features", c)
    _check_training_corpus("fsa_features", train, 1)
    counts = fsa_counts(train, test, t=t, alphabet_size=alphabet_size, max_state_length=max_state_length)
    return weight_counts(counts, weighting=weighting, c=c, normalise=normalise)


def fsa_counts(
    train: list[np.ndarray],
    test: list[np.ndarray],
    *,
    t: int,
    alphabet_size: int,
    max_state_length: int | None = None,
) -> TransitionCounts:
    """:class:`TransitionCounts` of F_t(S): every transition taken, Eq. 2 counts without document starts.

    Parameters
    ----------
    train, test, t, alphabet_size, max_state_length
        See :func:`fsa_features`.

    Returns
    -------
    TransitionCounts
        Its ``tf`` has a column for every transition any document takes;
        ``columns`` are those taken in training.
    """
    _check_training_corpus("fsa_counts", train, 1)
    n_train = len(train)
    run = run_fsa(train, test, t=t, max_state_length=max_state_length)
    lengths = np.diff(run.offsets)
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    in_train = doc_of < n_train
    keys, first, column = np.unique(run.transition, return_index=True, return_inverse=True)
    counted = in_train & ~run.initial
    f_ux = np.bincount(column[counted], minlength=len(keys))
    state_keys, state_of = np.unique(run.source, return_inverse=True)
    f_u = np.bincount(state_of[counted], minlength=len(state_keys))
    tf = _count_matrix(doc_of, column.astype(np.int64), len(lengths), len(keys))
    trained = np.zeros(len(keys), dtype=bool)
    trained[column[in_train]] = True
    info = {
        "alphabet_size": int(alphabet_size),
        "states": int(run.n_states),
        "features": int(trained.sum()),
        "transitions_seen": len(keys),
        "max_state_length_reached": int(run.state_length.max(initial=0)),
        "mean_state_length": float(run.state_length.mean()) if run.state_length.size else 0.0,
    }
    return TransitionCounts(tf, f_ux, f_u[state_of[first]], n_train, np.flatnonzero(trained), int(alphabet_size), info)
