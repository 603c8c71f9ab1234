"""Any-gram kernels (Kaljahi & Foster): the paper's dynamic programmes and their exact fast paths.

Three variants compare two tokenised sentences ``S1``, ``S2`` through the table
``delta[i][j] = lam * (m(i, j) + delta[i + 1][j + 1])`` summed over all cells:

* ``"sm"`` (Algorithm 1): cells count only where the token ids are equal (``m = 1``);
* ``"west"`` (Algorithm 2): cells count only where the cosine similarity of the
  token vectors reaches ``theta`` (``m = 1``);
* ``"wess"`` (Algorithm 3): every cell counts with ``m`` the cosine similarity.

A zero vector (a word without a pre-trained embedding) has cosine similarity 0
with every vector, itself included. With ``identity`` (one integer per token,
``-1`` for none), two tokens of equal non-negative identity are the same token:
under ``west`` they always match (an identity test before the cosine, so
``theta = 1`` means exact match), under ``wess`` their similarity is 1 even
when their vectors are zero.

Exact fast paths (``method="auto"``):

* ``sm`` equals ``sum_n lam**n sum_u c1(u) c2(u)`` over all contiguous n-grams
  ``u``: the Gram matrix is ``X Y^T`` of sparse maps ``phi_u(S) = lam**(|u|/2) count_S(u)``,
  accumulated row by row from per-n-gram posting lists (parallel over rows);
* ``wess`` equals ``sum_{m>=0} lam**(m+1) <sum_{p>=m} e_p, sum_{q>=m} f_q>`` over
  the unit token vectors: the Gram matrix is one GEMM of dense maps of
  ``lam**((m+1)/2)``-weighted suffix sums, done in length-sorted blocks so that
  sentence pairs only pay for the positions both of them have, then permuted
  back to the input order in place;
* ``west`` has no closed form (a threshold match is not transitive): it runs the
  same recurrence with the match read from a precomputed sparse table over the
  distinct token vectors instead of a cosine per cell. Unrolled, the recurrence
  gives each cell ``lam + ... + lam**r`` for the run of ``r`` matching cells
  down its diagonal, so the kernel is ``sum_k lam**k N_k`` with ``N_k`` the
  number of runs of at least ``k`` matches; per sentence the table becomes one
  bit mask of matching positions per token type, and a pair's column of the DP
  is a few word-wide AND/shift/popcount operations instead of one cell each.

Sentences are given either as 1-D integer arrays of token ids (with ``vectors``,
a ``V x d`` array indexed by id, for ``west``/``wess``) or, for ``west``/``wess``
without ``vectors``, as 2-D ``L x d`` arrays holding each sentence's own token
vectors; the latter carries per-sentence features such as the aspect-term
dimension of Section 5.2 (see :mod:`kernbench.kernels.anygram_encoding`).
"""

from __future__ import annotations

from typing import Sequence

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit

from kernbench.kernels import WESS_ROW_BLOCK
from kernbench.kernels import _anygram_dp as dp
from kernbench.kernels._prange import prange_njit
from kernbench.kernels.sparse_linear import accumulate_row, gram_operands, sparse_gram
from kernbench.progress import progress

VARIANTS = ("sm", "west", "wess")
METHODS = ("auto", "dp")

#: Pairs handed to one jitted call; bounds the memory of the pair lists.
_PAIR_BATCH = 2_000_000
#: n-grams of the sm maps built at once (about 100 bytes each at the peak): about 1 GB for a block of two runs.
_SM_CHUNK_NGRAMS = 5_000_000
#: Sentences longer than this are compared by the DP (its memory is O(L) per pair; see _gram_sm_fast).
_SM_LONG_LENGTH = 1_000
#: Pairs per chunk of the parallel loop: small enough to balance uneven pair costs.
_CHUNK = 256
#: Pairs per task of the west fast path (one task builds one sentence's match masks).
_WEST_TASK = 4096
#: Rows and columns of one GEMM of the wess map: wide enough for BLAS, narrow enough in sentence length.
#: A Gram matrix computed in row tiles that start at multiples of the row block is the same matrix.
_WESS_ROWS, _WESS_COLS = WESS_ROW_BLOCK, 256


# --------------------------------------------------------------------------- inputs


def _check(variant: str, lam: float, theta, method: str = "auto") -> None:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not 0.0 < float(lam) <= 1.0:
        raise ValueError(f"lam must be in (0, 1], got {lam!r}")
    if variant == "west" and theta is None:
        raise ValueError("variant 'west' needs a similarity threshold theta")
    if variant == "west" and not -1.0 <= float(theta) <= 1.0:  # a cosine; above 1 nothing matches, NaN never does
        raise ValueError(f"theta must be a cosine similarity in [-1, 1], got {theta!r}")


def _check_finite(variant: str, sentences: Sequence, vectors) -> None:
    """Reject NaN or infinite token vectors: a NaN would read as a missing vector, an inf as a NaN kernel."""
    if variant == "sm":
        return
    arrays = [vectors] if vectors is not None else sentences
    for k, a in enumerate(arrays):
        a = np.asarray(a, dtype=np.float64)
        if not np.isfinite(a).all():
            row = np.argwhere(~np.isfinite(a))[0]
            where = f"vectors row {row[0]}" if vectors is not None else f"sentence {k}, token {row[0]}"
            raise ValueError(f"token vectors must be finite: {where} holds {float(a[tuple(row)])}")


def _flat_ids(X: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate 1-D id sequences; return ``(tokens, offsets)``."""
    seqs = [np.asarray(s) for s in X]
    for k, s in enumerate(seqs):
        if s.ndim != 1 or (s.size and not np.issubdtype(s.dtype, np.integer)):
            raise ValueError(f"sentence {k}: expected a 1-D integer array of token ids, got shape {s.shape} {s.dtype}")
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([s.size for s in seqs])
    tokens = np.concatenate([s.astype(np.int64) for s in seqs]) if seqs else np.zeros(0, np.int64)
    return tokens, offsets


@njit(cache=True)
def _unit_rows_into(m, out):
    for r in range(m.shape[0]):
        acc = 0.0
        for k in range(m.shape[1]):  # one fixed order, so a row's norm does not depend on where it sits in memory
            acc += m[r, k] * m[r, k]
        if acc > 0.0:
            norm = np.sqrt(acc)
            for k in range(m.shape[1]):
                out[r, k] = m[r, k] / norm


def _unit_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit Euclidean norm; zero rows stay zero (cosine 0 with everything)."""
    m = np.ascontiguousarray(m, dtype=np.float64)
    out = np.zeros_like(m)
    _unit_rows_into(m, out)
    return out


def _flat_units(X: Sequence, vectors) -> tuple[np.ndarray, np.ndarray]:
    """Unit token vectors of every sentence, concatenated; return ``(units, offsets)``."""
    if vectors is not None:
        vectors = np.asarray(vectors)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be a 2-D (V x d) array, got shape {vectors.shape}")
        tokens, offsets = _flat_ids(X)
        if tokens.size and (tokens.min() < 0 or tokens.max() >= vectors.shape[0]):
            raise ValueError(f"token ids must lie in [0, {vectors.shape[0]}) to index vectors")
        return np.ascontiguousarray(_unit_rows(vectors)[tokens]), offsets
    seqs = [np.asarray(s, dtype=np.float64) for s in X]
    dims = {s.shape[1] for s in seqs if s.ndim == 2}
    for k, s in enumerate(seqs):
        if s.ndim != 2:
            raise ValueError(
                f"sentence {k}: without `vectors`, west/wess need each sentence as an (L x d) array of token vectors"
            )
    if len(dims) > 1:
        raise ValueError(f"sentences have token vectors of different dimensions {sorted(dims)}")
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([s.shape[0] for s in seqs])
    d = dims.pop() if dims else 0
    units = _unit_rows(np.concatenate(seqs, axis=0)) if seqs else np.zeros((0, d))
    return np.ascontiguousarray(units), offsets


def _units_pair(X, Y, vectors):
    ux, ox = _flat_units(X, vectors)
    uy, oy = (ux, ox) if Y is None else _flat_units(Y, vectors)
    if ux.shape[0] and uy.shape[0] and ux.shape[1] != uy.shape[1]:
        raise ValueError(f"X and Y token vectors differ in dimension ({ux.shape[1]} vs {uy.shape[1]})")
    return ux, ox, uy, oy


def _flat_identity(identity, offsets: np.ndarray, what: str = "identity") -> np.ndarray | None:
    """Concatenated identity ids of every sentence (``None`` stays ``None``), checked against the token counts."""
    if identity is None:
        return None
    seqs = [np.asarray(s) for s in identity]
    if len(seqs) != offsets.size - 1:
        raise ValueError(f"{what}: {len(seqs)} id arrays for {offsets.size - 1} sentences")
    for k, s in enumerate(seqs):
        if s.ndim != 1 or s.size != offsets[k + 1] - offsets[k] or (s.size and not np.issubdtype(s.dtype, np.integer)):
            raise ValueError(
                f"{what}: sentence {k} needs a 1-D integer array of {offsets[k + 1] - offsets[k]} ids, "
                f"got shape {s.shape} {s.dtype}"
            )
    return np.concatenate([s.astype(np.int64) for s in seqs]) if seqs else np.zeros(0, np.int64)


def _identity_pair(identity, identity_y, ox, oy, symmetric: bool):
    """Flat identity ids of X and Y (Y's default to X's when X is compared with itself)."""
    if identity is None and identity_y is None:
        return None, None
    if identity is None or (identity_y is None and not symmetric):
        raise ValueError("identity ids are needed for both X and Y (identity and identity_y)")
    ix = _flat_identity(identity, ox)
    iy = ix if symmetric else _flat_identity(identity_y, oy, "identity_y")
    return ix, iy


# --------------------------------------------------------------------------- pairs


def _rows_per_batch(ny: int) -> int:
    return max(1, _PAIR_BATCH // max(ny, 1))


def _pair_batches(nx: int, ny: int, symmetric: bool):
    """Yield ``(pa, pb)`` index arrays covering every pair (``a <= b`` only when symmetric)."""
    rows_per_batch = _rows_per_batch(ny)
    for r0 in range(0, nx, rows_per_batch):
        rows = np.arange(r0, min(nx, r0 + rows_per_batch), dtype=np.int64)
        if symmetric:
            counts = ny - rows
            pa = np.repeat(rows, counts)
            starts = np.repeat(np.cumsum(counts) - counts, counts)
            pb = np.arange(pa.size, dtype=np.int64) - starts + pa
        else:
            pa = np.repeat(rows, ny)
            pb = np.tile(np.arange(ny, dtype=np.int64), rows.size)
        yield pa, pb


def _run_pairs(fill, nx: int, ny: int, symmetric: bool) -> np.ndarray:
    """Gram matrix from a jitted pair filler ``fill(pa, pb, out)``."""
    gram = np.zeros((nx, ny))
    batches = progress(
        _pair_batches(nx, ny, symmetric), desc=f"Gram {nx}x{ny}", total=-(-nx // _rows_per_batch(ny)), unit="batch"
    )
    with numba.parallel_chunksize(_CHUNK):
        for pa, pb in batches:
            out = np.empty(pa.size)
            fill(pa, pb, out)
            gram[pa, pb] = out
            if symmetric:
                gram[pb, pa] = out
    return gram


# --------------------------------------------------------------------------- sm


def _ngram_maps(tokens: np.ndarray, offsets: np.ndarray, lam: float) -> sp.csr_matrix:
    """Sparse all-n-gram map: entry ``(s, u) = lam**(|u|/2) * count_s(u)``.

    Each n-gram gets an integer id level by level: the id of the n-gram starting
    at position ``i`` is the rank of ``(id of its (n-1)-gram prefix, token i+n-1)``.
    Token ids are first replaced by their rank among the distinct ids, so any
    integer ids (negative or large ones too) give distinct, non-overflowing keys.
    """
    n = offsets.size - 1
    lengths = np.diff(offsets)
    sent = np.repeat(np.arange(n, dtype=np.int64), lengths)
    end = np.repeat(offsets[1:], lengths)  # one past the last token of each position's sentence
    pos = np.arange(tokens.size, dtype=np.int64)
    distinct, tokens = np.unique(tokens, return_inverse=True)
    tokens = tokens.astype(np.int64).ravel()
    width = max(distinct.size, 1)
    ids = tokens.copy()
    rows, cols, vals = [], [], []
    n_feat, order = 0, 1
    while pos.size:
        rows.append(sent)
        cols.append(ids + n_feat)
        vals.append(np.full(pos.size, lam ** (order / 2.0)))
        n_feat += int(ids.max()) + 1
        keep = pos + order < end  # the n-gram can be extended by one token
        pos, sent, end, prev = pos[keep], sent[keep], end[keep], ids[keep]
        order += 1
        if not pos.size:
            break
        keys = prev * width + tokens[pos + order - 1]
        ids = np.unique(keys, return_inverse=True)[1].astype(np.int64)
    if not rows:
        return sp.csr_matrix((n, 1))
    mat = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n_feat))
    return mat.tocsr()  # duplicate (sentence, n-gram) entries add up to lam**(n/2) * count


@prange_njit
def _sparse_gram_at(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, rows, cols, triangle, mirror, out):
    """As :func:`kernbench.kernels.sparse_linear.sparse_gram` for a block of a larger Gram matrix: row ``a``
    and column ``b`` of the block go to ``out[rows[a], cols[b]]`` (and, with ``mirror``, to
    ``out[cols[b], rows[a]]`` too); with ``triangle`` (a block of sentences against themselves) only
    ``b >= a`` is accumulated."""
    ny = cols.shape[0]
    for a in numba.prange(x_ptr.shape[0] - 1):
        acc = np.zeros(ny)
        accumulate_row(x_ptr, x_idx, x_val, y_ptr, y_idx, y_val, a, triangle, acc)
        for b in range(a if triangle else 0, ny):
            out[rows[a], cols[b]] = acc[b]
            if mirror:
                out[cols[b], rows[a]] = acc[b]


def _sm_operands(X, Y, lam):
    """CSR arrays of the n-gram maps of ``X`` and the posting lists of ``Y`` (``X`` itself when ``None``)."""
    tx, ox = _flat_ids(X)
    if Y is None:
        return gram_operands(_ngram_maps(tx, ox, lam))
    ty, oy = _flat_ids(Y)
    phi = _ngram_maps(np.concatenate([tx, ty]), np.concatenate([ox, oy[1:] + ox[-1]]), lam)
    nx = ox.size - 1
    return gram_operands(phi[:nx], phi[nx:])


def _sm_chunks(lengths: np.ndarray, budget: int, long_length: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Split sentences: runs (in input order) whose ``L (L + 1) / 2`` n-grams make at most ``budget``
    together, and the sentences of more than ``long_length`` tokens (left to the DP)."""
    ngrams = lengths * (lengths + 1) // 2
    chunks, current, total = [], [], 0
    for i in np.flatnonzero(lengths <= long_length):
        if current and total + ngrams[i] > budget:
            chunks.append(np.array(current, dtype=np.int64))
            current, total = [], 0
        current.append(i)
        total += int(ngrams[i])
    if current:
        chunks.append(np.array(current, dtype=np.int64))
    return chunks, np.flatnonzero(lengths > long_length)


def _sm_dp_pairs(X, Y, long_x, long_y, lam, out, symmetric) -> None:
    """Fill ``out`` at every pair with a long sentence by the DP (O(L) memory per pair)."""
    tx, ox = _flat_ids(X)
    ty, oy = (tx, ox) if symmetric else _flat_ids(Y)
    nx, ny = ox.size - 1, oy.size - 1
    short_x = np.setdiff1d(np.arange(nx, dtype=np.int64), long_x)
    pa = np.concatenate([np.repeat(long_x, ny), np.repeat(short_x, long_y.size)]).astype(np.int64)
    pb = np.concatenate([np.tile(np.arange(ny, dtype=np.int64), long_x.size), np.tile(long_y, short_x.size)])
    if symmetric:  # every pair once: (long, any) with a <= b where both are long; the mirror is written below
        is_long = np.zeros(nx, dtype=bool)
        is_long[long_x] = True
        keep = is_long[pa] & (~is_long[pb] | (pa <= pb))
        pa, pb = pa[keep], pb[keep]
    for k in range(0, pa.size, _PAIR_BATCH):
        a, b = pa[k : k + _PAIR_BATCH], pb[k : k + _PAIR_BATCH]
        vals = np.empty(a.size)
        dp.gram_sm(tx, ox, ty, oy, a, b, lam, vals)
        out[a, b] = vals
        if symmetric:
            out[b, a] = vals


def _gram_sm_fast(X, Y, lam, budget: int | None = None, long_length: int | None = None):
    """sm Gram matrix from the n-gram maps, within a memory budget.

    The map of a sentence of ``L`` tokens holds ``L (L + 1) / 2`` n-grams (about 100 bytes each at the
    peak of building and multiplying the maps), so the maps are built for runs of sentences of at most
    ``budget`` n-grams together (``_SM_CHUNK_NGRAMS``), one block of the Gram matrix per pair of runs,
    written in place; a sentence of more than ``long_length`` tokens (``_SM_LONG_LENGTH``) is compared
    with every other by the DP, whose memory is O(L) per pair. A corpus of one run is mapped at once.
    """
    budget = _SM_CHUNK_NGRAMS if budget is None else budget
    long_length = _SM_LONG_LENGTH if long_length is None else long_length
    symmetric = Y is None
    X = list(X)
    Y = X if symmetric else list(Y)
    chunks_x, long_x = _sm_chunks(np.array([len(s) for s in X], dtype=np.int64), budget, long_length)
    chunks_y, long_y = (
        (chunks_x, long_x) if symmetric else _sm_chunks(np.array([len(s) for s in Y], dtype=np.int64), budget, long_length)
    )
    if not long_x.size and not long_y.size and len(chunks_x) <= 1 and len(chunks_y) <= 1:
        return _gram_sm_block(X, None if symmetric else Y, lam)
    out = np.zeros((len(X), len(Y)))
    for i, rows in enumerate(chunks_x):
        for j, cols in enumerate(chunks_y):
            if symmetric and j < i:
                continue
            own = symmetric and i == j
            operands = _sm_operands([X[r] for r in rows], None if own else [Y[c] for c in cols], lam)
            _sparse_gram_at(*operands, rows, cols, own, symmetric, out)
    if long_x.size or long_y.size:
        _sm_dp_pairs(X, Y, long_x, long_y, float(lam), out, symmetric)
    return out


def _gram_sm_block(X, Y, lam):
    """sm Gram matrix of ``X`` against ``Y`` (or itself) from one map of all their n-grams."""
    operands = _sm_operands(X, Y, lam)
    nx, ny = operands[0].size - 1, (len(X) if Y is None else len(list(Y)))
    out = np.empty((nx, ny))
    sparse_gram(*operands, ny, Y is None, out)
    return out


# --------------------------------------------------------------------------- wess


@prange_njit
def _suffix_map(units, offsets, order, lam, width):
    """Rows ``[lam**((m+1)/2) * sum_{p>=m} e_p for m < width]`` of sentences ``order``, flattened m-major."""
    d = units.shape[1]
    out = np.zeros((order.shape[0], width * d))
    for r in numba.prange(order.shape[0]):
        a = order[r]
        acc = np.zeros(d)
        for m in range(offsets[a + 1] - offsets[a] - 1, -1, -1):
            acc += units[offsets[a] + m]
            if m < width:
                w = np.sqrt(lam ** (m + 1))
                for k in range(d):
                    out[r, m * d + k] = w * acc[k]
    return out


@prange_njit
def _mirror_upper(gram):
    """Copy the upper triangle of a square matrix onto its lower triangle, in cache-sized tiles."""
    n = gram.shape[0]
    tile = 64
    n_tiles = (n + tile - 1) // tile
    for ti in numba.prange(n_tiles):
        r0 = ti * tile
        for c0 in range(0, r0 + 1, tile):
            for r in range(r0, min(n, r0 + tile)):
                for c in range(c0, min(r, c0 + tile)):
                    gram[r, c] = gram[c, r]


@prange_njit
def _permute_in_place(mat, row_src, col_src):
    """``mat[i, j] <- mat[row_src[i], col_src[j]]`` without a second matrix (columns per row, then row cycles)."""
    n_rows, n_cols = mat.shape
    # Element loops, not slice assignments (as in :func:`kernbench.kernels.sparse_linear.sparse_gram`).
    for i in numba.prange(n_rows):
        buf = np.empty(n_cols)
        for j in range(n_cols):
            buf[j] = mat[i, col_src[j]]
        for j in range(n_cols):
            mat[i, j] = buf[j]
    done = np.zeros(n_rows, dtype=np.bool_)
    held = np.empty(n_cols)
    for start in range(n_rows):
        if done[start] or row_src[start] == start:
            continue
        for j in range(n_cols):
            held[j] = mat[start, j]
        i = start
        while True:
            done[i] = True
            src = row_src[i]
            if src == start:
                for j in range(n_cols):
                    mat[i, j] = held[j]
                break
            for j in range(n_cols):
                mat[i, j] = mat[src, j]
            i = src


def _block_products(gram, fa, fb, blocks) -> None:
    """``gram[rows, cols] = fa[rows, :w] @ fb[cols, :w].T`` for every ``(rows, cols, w)`` in ``blocks``.

    Each product runs on one BLAS thread and the blocks are spread over the
    threads numba is allowed: BLAS splits a product differently for different
    thread counts (last-bit differences), so this keeps every entry the same
    whatever the number of threads.
    """
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    def one(block):
        rows, cols, w = block
        np.matmul(fa[rows, :w], fb[cols, :w].T, out=gram[rows, cols])

    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(numba.get_num_threads()) as pool:
        for _ in pool.map(one, blocks):
            pass


def _gram_wess_fast(X, Y, lam, vectors, identity=None, identity_y=None):
    ux, ox, uy, oy = _units_pair(X, Y, vectors)
    lx, ly = np.diff(ox), np.diff(oy)
    nx, ny = lx.size, ly.size
    d = ux.shape[1]
    # Longest sentences first: a block pair needs only the positions of its shorter block.
    ry = np.argsort(-ly, kind="stable")
    fy = _suffix_map(uy, oy, ry, lam, max(int(ly.max()), 1))
    gram = np.empty((nx, ny))
    if Y is None:
        rx, fx = ry, fy
        starts = [(r0, c0) for r0 in range(0, nx, _WESS_ROWS) for c0 in range(r0, ny, _WESS_COLS)]
    else:
        # Rows keep their order, in blocks of _WESS_ROWS, and a column block's width depends on
        # the columns only: any run of whole row blocks repeats these products bit for bit.
        # Positions past the longest column sentence meet only zeros, so the row map stops there.
        rx = np.arange(nx)
        fx = _suffix_map(ux, ox, rx, lam, max(int(ly.max()), 1))
        starts = [(r0, c0) for r0 in range(0, nx, _WESS_ROWS) for c0 in range(0, ny, _WESS_COLS)]
    blocks = [
        (slice(r0, r0 + _WESS_ROWS), slice(c0, c0 + _WESS_COLS), int(ly[ry[c0]]) * d) for r0, c0 in starts
    ]
    _block_products(gram, fx, fy, blocks)
    if Y is None:
        _mirror_upper(gram)
    inv_x, inv_y = np.empty(nx, dtype=np.int64), np.empty(ny, dtype=np.int64)
    inv_x[rx] = np.arange(nx)
    inv_y[ry] = np.arange(ny)
    _permute_in_place(gram, inv_x, inv_y)
    ix, iy = _identity_pair(identity, identity_y, ox, oy, Y is None)
    if ix is not None:
        gram += _identity_gram(ux, ox, ix, uy, oy, iy, lam)
    return gram


def _identity_maps(ux, ox, ix, uy, oy, iy, lam):
    """Sparse wess maps of the identity matches that the vectors miss: tokens with a zero vector and an identity.

    A token pair of equal identity has similarity 1; for nonzero (unit) vectors the cosine already gives it,
    for zero vectors it adds ``1`` to the pair's similarity. As the wess kernel is linear in the similarities,
    that adds ``sum_m lam**(m+1) <c_m(x), c_m(y)>`` with ``c_m`` the counts of each such identity at positions
    ``>= m``: one column per (position, identity).

    Returns
    -------
    tuple of scipy.sparse.csr_matrix
        The maps of X and of Y, with shared columns.
    """
    parts = [(u, o, i) for u, o, i in ((ux, ox, ix), (uy, oy, iy))]
    keys = np.concatenate([i[~np.any(u != 0.0, axis=1) & (i >= 0)] for u, o, i in parts])
    types = np.unique(keys)
    width = max(types.size, 1)
    maps = []
    for u, o, i in parts:
        n = o.size - 1
        sel = np.flatnonzero(~np.any(u != 0.0, axis=1) & (i >= 0))
        sent = np.searchsorted(o, sel, side="right") - 1
        pos = sel - o[sent]
        reps = pos + 1
        rows = np.repeat(sent, reps)
        m = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        cols = m * width + np.repeat(np.searchsorted(types, i[sel]), reps)
        vals = np.sqrt(float(lam) ** (m + 1))
        n_cols = (int(max(np.diff(ox).max(initial=0), np.diff(oy).max(initial=0))) + 1) * width
        maps.append(sp.csr_matrix((vals, (rows, cols)), shape=(n, n_cols)))
    return maps[0], maps[1]


def _identity_gram(ux, ox, ix, uy, oy, iy, lam) -> np.ndarray | None:
    """What identity adds to a wess Gram matrix (``None`` without identity ids)."""
    if ix is None:
        return None
    fx, fy = _identity_maps(ux, ox, ix, uy, oy, iy, lam)
    return (fx @ fy.T).toarray()


# --------------------------------------------------------------------------- west


@prange_njit
def _upper_hits(sims, r0, lo):
    """Positions ``(r0 + r, r0 + c)`` with ``c >= r`` and ``sims[r, c] >= lo``, row by row."""
    n_rows, n_cols = sims.shape
    counts = np.zeros(n_rows + 1, dtype=np.int64)
    for r in numba.prange(n_rows):
        c_hits = 0
        for c in range(r, n_cols):
            if sims[r, c] >= lo:
                c_hits += 1
        counts[r + 1] = c_hits
    starts = np.cumsum(counts)
    rows = np.empty(starts[-1], dtype=np.int64)
    cols = np.empty(starts[-1], dtype=np.int64)
    for r in numba.prange(n_rows):
        k = starts[r]
        for c in range(r, n_cols):
            if sims[r, c] >= lo:
                rows[k] = r0 + r
                cols[k] = r0 + c
                k += 1
    return rows, cols


@njit(cache=True)
def _dp_cosines(units, rows, cols):
    """Cosines of the given pairs by the DP's own inner product."""
    out = np.empty(rows.shape[0])
    for k in range(rows.shape[0]):
        out[k] = dp.dot(units[rows[k]], units[cols[k]])
    return out


def match_table(units: np.ndarray, theta: float, *, block: int = 512) -> sp.csr_matrix:
    """Sparse 0/1 table of ``cos(u_s, u_t) >= theta`` over distinct unit vectors.

    Cosines come from a blocked GEMM; those within round-off of ``theta`` are
    recomputed with the DP's own inner product, so the table decides exactly as
    Algorithm 2 does.

    Parameters
    ----------
    units : ndarray of shape (T, d)
        Distinct unit (or zero) vectors.
    theta : float
        Similarity threshold.
    block : int, optional
        Rows per GEMM block (bounds the float64 scratch memory).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (T, T), dtype uint8
        1 where the pair matches.
    """
    units = np.ascontiguousarray(units, dtype=np.float64)
    t = units.shape[0]
    rows, cols = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for r0 in range(0, t, block):  # the table is symmetric: the upper triangle, then mirrored
        sims = units[r0 : r0 + block] @ units[r0:].T
        r, c = _upper_hits(sims, r0, theta - 1e-9)  # candidates; those within round-off are decided by the DP's dot
        near = sims[r - r0, c - r0] < theta + 1e-9
        keep = np.ones(r.size, dtype=bool)
        keep[near] = _dp_cosines(units, r[near], c[near]) >= theta
        off = keep & (r != c)
        rows += [r[keep], c[off]]
        cols += [c[keep], r[off]]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(rows.size, dtype=np.uint8), (rows, cols)), shape=(t, t))


def _distinct_rows(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a float matrix (compared bitwise) and each row's index among them."""
    units = np.ascontiguousarray(units)
    if units.shape[0] == 0:
        return units, np.zeros(0, dtype=np.int64)
    keys = units.view(np.dtype((np.void, units.dtype.itemsize * units.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return units[first], inverse.reshape(-1).astype(np.int64)


def _west_tasks(nx: int, ny: int, symmetric: bool, size: int = _WEST_TASK):
    """Split the pairs into tasks ``(a, b0, b1)`` of at most ``size`` pairs (``b >= a`` when symmetric)."""
    ta, tb0, tb1 = [], [], []
    for a in range(nx):
        start = a if symmetric else 0
        b0 = np.arange(start, ny, size, dtype=np.int64)
        ta.append(np.full(b0.size, a, dtype=np.int64))
        tb0.append(b0)
        tb1.append(np.minimum(b0 + size, ny))
    return tuple(np.concatenate(x) for x in (ta, tb0, tb1))


def _west_table(both: np.ndarray, ids, theta: float):
    """Token types (distinct vectors, and identities when given), each token's type, and the match table."""
    if ids is None:
        types, inverse = _distinct_rows(both)
        return inverse, match_table(types, theta)
    types, inverse = _distinct_rows(np.hstack([both, ids.astype(np.float64)[:, None]]))
    table = match_table(types[:, :-1], theta)
    same = np.flatnonzero(types[:, -1] >= 0)  # a type with an identity is one token: it matches itself
    eye = sp.csr_matrix((np.ones(same.size, dtype=np.uint8), (same, same)), shape=table.shape)
    table = table.maximum(eye).astype(np.uint8).tocsr()
    table.sort_indices()
    return inverse, table


def _gram_west_fast(X, Y, lam, vectors, theta, identity=None, identity_y=None):
    ux, ox, uy, oy = _units_pair(X, Y, vectors)
    both = np.concatenate([ux, uy]) if Y is not None else ux
    ix, iy = _identity_pair(identity, identity_y, ox, oy, Y is None)
    ids = None if ix is None else (np.concatenate([ix, iy]) if Y is not None else ix)
    inverse, table = _west_table(both, ids, theta)
    indptr, indices = table.indptr.astype(np.int64), table.indices.astype(np.int64)
    tx = inverse[: ux.shape[0]]
    ty = tx if Y is None else inverse[ux.shape[0] :]
    nx, ny = ox.size - 1, oy.size - 1
    symmetric = Y is None
    ta, tb0, tb1 = _west_tasks(nx, ny, symmetric)
    gram = np.zeros((nx, ny))
    with numba.parallel_chunksize(1):
        dp.gram_west_bits(tx, ox, ty, oy, indptr, indices, ta, tb0, tb1, lam, gram)
    if symmetric:
        _mirror_upper(gram)
    return gram


# --------------------------------------------------------------------------- public


#: The exact fast path of each variant, ``function(X, Y, *, lam, vectors, theta, identity=None, identity_y=None)``
#: (``Y=None``: X against itself); :func:`anygram_gram` takes it with ``method="auto"``, the jitted DP with ``method="dp"``.
FAST_PATHS = {
    "sm": lambda X, Y, *, lam, vectors, theta, **ids: _gram_sm_fast(X, Y, lam),
    "west": lambda X, Y, *, lam, vectors, theta, **ids: _gram_west_fast(X, Y, lam, vectors, float(theta), **ids),
    "wess": lambda X, Y, *, lam, vectors, theta, **ids: _gram_wess_fast(X, Y, lam, vectors, **ids),
}


def anygram_kernel(s1, s2, *, variant: str, lam: float, vectors=None, theta=None, identity=None) -> float:
    """Any-gram kernel of one sentence pair by the paper's dynamic programme.

    Parameters
    ----------
    s1, s2 : array-like
        Token ids (1-D integers). For ``west``/``wess`` without ``vectors``,
        (L x d) arrays of the sentences' token vectors instead.
    variant : {"sm", "west", "wess"}
        Algorithm 1 (string match), 2 (similarity threshold) or 3 (similarity score).
    lam : float
        Decay factor in (0, 1].
    vectors : array-like of shape (V, d), optional
        Token vectors indexed by id (``west``/``wess``).
    theta : float, optional
        Cosine similarity threshold (``west`` only).
    identity : tuple of array-like, optional
        ``(ids1, ids2)``, one integer per token (``-1``: none): tokens of equal identity always
        match (``west``) or have similarity 1 (``wess``). Ignored by ``sm``.

    Returns
    -------
    float
        ``K(s1, s2)``.
    """
    _check(variant, lam, theta)
    _check_finite(variant, [s1, s2], vectors)
    if variant == "sm":
        (t1, _), (t2, _) = _flat_ids([s1]), _flat_ids([s2])
        return float(dp.pair_sm(t1, t2, float(lam)))
    ux, ox, uy, oy = _units_pair([s1], [s2], vectors)
    ix, iy = (None, None) if identity is None else _identity_pair([identity[0]], [identity[1]], ox, oy, False)
    if variant == "west":
        if ix is not None:
            return float(dp.pair_west_ids(ux, uy, ix, iy, float(lam), float(theta)))
        return float(dp.pair_west(ux, uy, float(lam), float(theta)))
    extra = 0.0 if ix is None else float(_identity_gram(ux, ox, ix, uy, oy, iy, lam)[0, 0])
    return float(dp.pair_wess(ux, uy, float(lam))) + extra


def anygram_gram(
    X, Y=None, *, variant: str, lam: float, vectors=None, theta=None, method: str = "auto", identity=None,
    identity_y=None,
) -> np.ndarray:
    """Gram matrix of the any-gram kernel between two lists of sentences.

    Parameters
    ----------
    X, Y : sequence of array-like
        Sentences as in :func:`anygram_kernel`. ``Y=None`` compares ``X`` with
        itself and returns a symmetric matrix, computing each pair once.
    variant : {"sm", "west", "wess"}
        Kernel variant.
    lam : float
        Decay factor in (0, 1].
    vectors : array-like of shape (V, d), optional
        Token vectors indexed by id (``west``/``wess``).
    theta : float, optional
        Cosine similarity threshold (``west`` only).
    method : {"auto", "dp"}
        ``"dp"`` runs the jitted dynamic programme on every pair; ``"auto"``
        takes the exact fast path of the variant (sparse n-gram map for ``sm``,
        suffix-sum GEMM for ``wess``, match table for ``west``).
    identity, identity_y : sequence of array-like, optional
        Identity ids of the tokens of ``X`` and ``Y`` (one 1-D integer array per sentence, ``-1``: none;
        ``identity_y`` defaults to ``identity`` when ``Y`` is None): tokens of equal identity always match
        (``west``) or have similarity 1 (``wess``). Ignored by ``sm``.

    Returns
    -------
    ndarray of shape (len(X), len(Y))
    """
    _check(variant, lam, theta, method)
    lam = float(lam)
    X = list(X)
    Y = None if Y is None else list(Y)
    _check_finite(variant, X + (Y or []), vectors)
    nx = len(X)
    ny = nx if Y is None else len(Y)
    if nx == 0 or ny == 0:
        return np.zeros((nx, ny))
    if variant == "sm":
        identity = identity_y = None
    ids = {} if identity is None and identity_y is None else {"identity": identity, "identity_y": identity_y}
    if method == "auto":
        return FAST_PATHS[variant](X, Y, lam=lam, vectors=vectors, theta=theta, **ids)
    extra = None
    if variant == "sm":
        tx, ox = _flat_ids(X)
        ty, oy = (tx, ox) if Y is None else _flat_ids(Y)
        fill = lambda pa, pb, out: dp.gram_sm(tx, ox, ty, oy, pa, pb, lam, out)  # noqa: E731
    else:
        ux, ox, uy, oy = _units_pair(X, Y, vectors)
        ix, iy = _identity_pair(identity, identity_y, ox, oy, Y is None)
        if variant == "west" and ix is not None:
            fill = lambda pa, pb, out: dp.gram_west_ids(ux, ix, ox, uy, iy, oy, pa, pb, lam, float(theta), out)  # noqa: E731
        elif variant == "west":
            fill = lambda pa, pb, out: dp.gram_west(ux, ox, uy, oy, pa, pb, lam, float(theta), out)  # noqa: E731
        else:
            fill = lambda pa, pb, out: dp.gram_wess(ux, ox, uy, oy, pa, pb, lam, out)  # noqa: E731
            extra = _identity_gram(ux, ox, ix, uy, oy, iy, lam)
    gram = _run_pairs(fill, nx, ny, Y is None)
    return gram if extra is None else gram + extra


def anygram_diag(X, *, variant: str, lam: float, vectors=None, theta=None, identity=None) -> np.ndarray:
    """Self-similarities ``K(x, x)`` of every sentence (by the DP), for kernel normalisation.

    Parameters
    ----------
    X : sequence of array-like
        Sentences as in :func:`anygram_kernel`.
    variant, lam, vectors, theta, identity
        As in :func:`anygram_gram`.

    Returns
    -------
    ndarray of shape (len(X),)
    """
    _check(variant, lam, theta)
    X = list(X)
    _check_finite(variant, X, vectors)
    n = len(X)
    idx = np.arange(n, dtype=np.int64)
    out = np.zeros(n)
    if n == 0:
        return out
    if variant == "sm":
        t, o = _flat_ids(X)
        dp.gram_sm(t, o, t, o, idx, idx, float(lam), out)
    else:
        u, o = _flat_units(X, vectors)
        ids = _flat_identity(identity, o)
        if variant == "west" and ids is not None:
            dp.gram_west_ids(u, ids, o, u, ids, o, idx, idx, float(lam), float(theta), out)
        elif variant == "west":
            dp.gram_west(u, o, u, o, idx, idx, float(lam), float(theta), out)
        else:
            dp.gram_wess(u, o, u, o, idx, idx, float(lam), out)
            if ids is not None:
                fx, _ = _identity_maps(u, o, ids, u, o, ids, lam)
                out += np.asarray(fx.multiply(fx).sum(axis=1)).ravel()
    return out


def normalize_gram(gram: np.ndarray, diag_x: np.ndarray, diag_y: np.ndarray) -> np.ndarray:
    """Cosine-normalised kernel ``K(x, y) / sqrt(K(x, x) K(y, y))``; 0 where a self-similarity is 0.

    Parameters
    ----------
    gram : ndarray of shape (n, m)
    diag_x : ndarray of shape (n,)
        ``K(x, x)`` of the rows.
    diag_y : ndarray of shape (m,)
        ``K(y, y)`` of the columns.

    Returns
    -------
    ndarray of shape (n, m)
    """
    sx = np.sqrt(np.clip(np.asarray(diag_x, dtype=np.float64), 0.0, None))
    sy = np.sqrt(np.clip(np.asarray(diag_y, dtype=np.float64), 0.0, None))
    inv_x = np.divide(1.0, sx, out=np.zeros_like(sx), where=sx > 0)
    inv_y = np.divide(1.0, sy, out=np.zeros_like(sy), where=sy > 0)
    return gram * inv_x[:, None] * inv_y[None, :]

