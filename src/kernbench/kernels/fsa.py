"""The frequent-set finite state automaton F_t(S) (Saunders et al., Section 4).

The states Σ_t(S) are every string that occurs at least ``t`` times in the
training corpus S (the empty string ε included); the set is closed under
taking substrings, since a substring occurs at least as often as the string
that contains it. The transition δ(u, x) is the longest suffix of ``ux`` in
Σ_t. By induction, the state reached after reading ``d[:j+1]`` is the
longest suffix of ``d[:j+1]`` in Σ_t, so processing a document reduces to
one question per position: how long is the longest suffix of the text read
so far that occurs at least ``t`` times in the training corpus?

That question is answered for every position of every document (training
and test) at once with a suffix array. The documents are reversed and
concatenated, each followed by a separator; a suffix of the reversed text
read from the position of ``d[j]`` spells ``d[:j+1]`` backwards, so suffixes
of ``d[:j+1]`` are prefixes of that suffix. A prefix occurs ``t`` times in
the training corpus when the suffix-array interval of suffixes sharing it
holds ``t`` training suffixes; two sweeps over the LCP array, keeping the
common prefix with the ``t`` nearest training suffixes on each side, give
the longest such prefix for every suffix in O(N t). A further sweep with a
stack of LCP minima gives each string a unique integer key: the first rank
of its suffix-array interval together with its length.

Documents are arrays of integer symbol codes ``>= 1`` (0 is the separator).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from pydivsufsort import divsufsort, kasai

_INF = np.iinfo(np.int32).max


@dataclass(frozen=True)
class FSARun:
    """Documents processed through F_t(S), one entry per symbol read.

    Per-position arrays are in document order (training documents first,
    then test documents), each document's positions left to right;
    ``offsets[i]:offsets[i + 1]`` are document ``i``'s positions.

    Attributes
    ----------
    n_states : int
        |Σ_t|, the number of states (distinct strings occurring at least
        ``t`` times in the training corpus, ε included).
    n_train : int
        Number of training documents.
    offsets : numpy.ndarray of int64
        Position offsets of the documents.
    state_length : numpy.ndarray of int32
        Length of the state reached after reading each position.
    transition : numpy.ndarray of int64
        Key of the transition (u, x) taken at each position: identifies the
        string ``ux`` (``u`` the state before, ``x`` the symbol read).
    source : numpy.ndarray of int64
        Key of the state ``u`` each transition leaves (ε has key 0).
    initial : numpy.ndarray of bool
        Whether the transition leaves a document-initial state ``d[:j]``
        (the paper excludes these from the transition counts).
    """

    n_states: int
    n_train: int
    offsets: np.ndarray
    state_length: np.ndarray
    transition: np.ndarray
    source: np.ndarray
    initial: np.ndarray


@numba.njit(cache=True)
def _frequent_prefix_lengths(lcp, train, dsep, t, cap):  # pragma: no cover - compiled
    """Longest prefix of each suffix (by rank) shared by >= t training suffixes, and |Σ_t|."""
    n = lcp.size
    neg = -1
    left = np.empty((n, t + 1), dtype=np.int32)
    prev_common = np.empty(n, dtype=np.int32)
    cur = np.full(t + 1, neg, dtype=np.int32)
    cur[0] = _INF
    # Forward: cur[s] = common prefix of rank r with its s nearest training suffixes at ranks <= r.
    for r in range(n):
        v = lcp[r]
        for s in range(1, t + 1):
            cur[s] = min(cur[s], v)
        prev_common[r] = cur[1]
        if train[r]:
            for s in range(t, 1, -1):
                cur[s] = cur[s - 1]
            cur[1] = _INF
        for s in range(t + 1):
            left[r, s] = cur[s]
    # Backward: cur[s] = common prefix of rank r with its s nearest training suffixes at ranks > r.
    for s in range(1, t + 1):
        cur[s] = neg
    ans = np.empty(n, dtype=np.int32)
    n_states = 1  # the empty string
    for r in range(n - 1, -1, -1):
        if r + 1 < n:
            if train[r + 1]:
                for s in range(t, 1, -1):
                    cur[s] = cur[s - 1]
                cur[1] = _INF
            v = lcp[r + 1]
            for s in range(1, t + 1):
                cur[s] = min(cur[s], v)
        best = 0
        for s in range(t + 1):
            m = min(left[r, s], cur[t - s])
            best = max(best, m)
        best = min(best, dsep[r], cap)
        ans[r] = best
        # Each frequent string is counted once, at the first training rank of its interval.
        if train[r]:
            pc = max(prev_common[r], 0)
            if best > pc:
                n_states += best - pc
    return ans, n_states


@numba.njit(cache=True)
def _interval_key(stack_idx, stack_val, top, length, m):  # pragma: no cover - compiled
    """Key of the prefix of ``length`` of the current suffix: first rank of its interval, and length."""
    lo, hi = 0, top
    # Last stack entry with LCP < length (entry 0 is a -1 sentinel).
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if stack_val[mid] < length:
            lo = mid
        else:
            hi = mid - 1
    return np.int64(stack_idx[lo]) * m + length


@numba.njit(cache=True)
def _string_keys(sa, lcp, ans_pos, dsep_pos, m):  # pragma: no cover - compiled
    """Per text position: key of the state reached there and of the transition taken there."""
    n = sa.size
    stack_idx = np.empty(n + 1, dtype=np.int64)
    stack_val = np.empty(n + 1, dtype=np.int32)
    top = 0
    stack_idx[0] = 0
    stack_val[0] = -1
    state_key = np.zeros(n, dtype=np.int64)
    trans_key = np.full(n, -1, dtype=np.int64)
    for r in range(n):
        if r > 0:
            v = lcp[r]
            while top > 0 and stack_val[top] >= v:
                top -= 1
            top += 1
            stack_idx[top] = r
            stack_val[top] = v
        q = sa[r]
        if dsep_pos[q] == 0:
            continue  # a separator: the state there is ε (key 0)
        state_key[q] = _interval_key(stack_idx, stack_val, top, ans_pos[q], m)
        # Position q + 1 is the previous symbol of the document (or its separator).
        trans_key[q] = _interval_key(stack_idx, stack_val, top, ans_pos[q + 1] + 1, m)
    return state_key, trans_key


def _reversed_corpus(docs: list[np.ndarray]):
    """Concatenate reversed documents, each followed by separator 0; also each position's distance to it."""
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    for i, d in enumerate(docs):
        if len(d) and int(np.min(d)) < 1:
            raise ValueError(f"document {i}: symbol codes must be >= 1 (0 is the separator)")
    text = np.zeros(int(lengths.sum()) + len(docs), dtype=np.uint8)
    dsep = np.zeros(text.size, dtype=np.int32)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
    for start, d in zip(starts, docs):
        text[start : start + len(d)] = d[::-1]
        dsep[start : start + len(d)] = np.arange(len(d), 0, -1, dtype=np.int32)
    return text, dsep, starts, lengths


def run_fsa(train: list[np.ndarray], test: list[np.ndarray], *, t: int, max_state_length: int | None = None) -> FSARun:
    """Build F_t from the training documents and process every document through it.

    Parameters
    ----------
    train, test : list of numpy.ndarray of uint8
        Documents as symbol codes (``>= 1``). Σ_t is estimated on ``train``.
    t : int
        Frequency threshold: a string is a state when it occurs at least
        ``t`` times in the training documents (occurrences may overlap, never
        cross a document boundary).
    max_state_length : int, optional
        Longest state kept (states longer than this are dropped; the set
        stays closed under substrings). ``None`` keeps every frequent string.

    Returns
    -------
    FSARun
        Transition and state keys and flags for every position.
    """
    if t < 1:
        raise ValueError(f"t must be >= 1, got {t}")
    docs = list(train) + list(test)
    if not docs:
        raise ValueError("no documents")
    text, dsep, starts, lengths = _reversed_corpus(docs)
    n_train_positions = int(starts[len(train)]) if len(test) else text.size
    sa = divsufsort(text)
    raw_lcp = kasai(text, sa)  # raw_lcp[r] = lcp(sa[r], sa[r + 1])
    # lcp[r] = common prefix of ranks r - 1 and r, never reaching past a document's end.
    lcp = np.zeros(sa.size, dtype=np.int32)
    lcp[1:] = np.minimum(np.minimum(raw_lcp[:-1], dsep[sa[:-1]]), dsep[sa[1:]])
    train_rank = (sa < n_train_positions) & (dsep[sa] > 0)
    cap = _INF if max_state_length is None else int(max_state_length)
    ans_rank, n_states = _frequent_prefix_lengths(lcp, train_rank, dsep[sa], int(t), cap)
    ans_pos = np.empty_like(ans_rank)
    ans_pos[sa] = ans_rank
    m = np.int64(int(dsep.max()) + 2)
    state_key, trans_key = _string_keys(sa, lcp, ans_pos, dsep, m)

    # Back to document order: forward position j of a document at reversed offset s is s + len - 1 - j.
    doc_of = np.repeat(np.arange(len(docs)), lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    j = np.arange(int(lengths.sum()), dtype=np.int64) - offsets[doc_of]
    q = starts[doc_of] + lengths[doc_of] - 1 - j
    previous_length = ans_pos[q + 1]
    return FSARun(
        n_states=int(n_states),
        n_train=len(train),
        offsets=offsets,
        state_length=ans_pos[q],
        transition=trans_key[q],
        source=state_key[q + 1],
        initial=previous_length == j,
    )


def frequent_strings(train: list[np.ndarray], *, t: int, max_state_length: int | None = None) -> set[tuple[int, ...]]:
    """Enumerate Σ_t explicitly (for small corpora and checks).

    Parameters
    ----------
    train : list of numpy.ndarray
        Training documents as symbol codes.
    t, max_state_length
        As in :func:`run_fsa`.

    Returns
    -------
    set of tuple of int
        Every state as a tuple of symbol codes; ``()`` is ε.
    """
    run = run_fsa(train, [], t=t, max_state_length=max_state_length)
    states: set[tuple[int, ...]] = {()}
    for i, doc in enumerate(train):
        lengths = run.state_length[run.offsets[i] : run.offsets[i + 1]]
        for j, length in enumerate(lengths):
            # Every suffix of a state is a state, and every state is the suffix of some state reached.
            for ell in range(1, int(length) + 1):
                states.add(tuple(int(c) for c in doc[j + 1 - ell : j + 1]))
    return states
