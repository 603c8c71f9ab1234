"""Feature scoring functions for ordinal text classification.

Notation (Baccianella, Esuli & Sebastiani, *Selecting features for ordinal
text classification*): ``Tr`` is the training set, ``R = <r_1 < ... < r_n>``
the ranks (1-5 stars), ``Phi(d)`` the true rank of document ``d``,
``#(t_k, r_j)`` the number of training documents of rank ``r_j`` that contain
feature ``t_k`` and ``#(t_k)`` the number that contain it (its document
frequency). Everything here is computed from the document-presence counts
``#(t_k, r_j)``, gathered once per training set in :class:`RankStats`.

Every method returns an *ordering*: the indices of all features, best first,
ties broken by the lower feature index (the vectoriser's vocabulary is
sorted, so ties fall alphabetically). Selecting the ``x`` top features of a
method is taking the first ``x`` entries of its ordering; for the round-robin
methods this is exactly the paper's "each rank picks x/n features in turn"
(see :func:`kernbench.papers.ordinal.selection.round_robin`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kernbench.papers.ordinal.selection import round_robin


@dataclass(frozen=True)
class RankStats:
    """Document-presence counts of every feature in every rank of a training set.

    Attributes
    ----------
    counts : numpy.ndarray
        ``(n_features, n_ranks)`` float array, ``#(t_k, r_j)``.
    ranks : numpy.ndarray
        The rank values ``r_1 < ... < r_n``.
    class_sizes : numpy.ndarray
        Number of training documents of each rank.
    """

    counts: np.ndarray
    ranks: np.ndarray
    class_sizes: np.ndarray

    @property
    def n_docs(self) -> int:
        """Number of training documents ``|Tr|``."""
        return int(self.class_sizes.sum())

    @property
    def df(self) -> np.ndarray:
        """Document frequency ``#(t_k)`` of every feature."""
        return self.counts.sum(axis=1)

    @property
    def idf(self) -> np.ndarray:
        """``IDF(t_k) = ln(|Tr| / #(t_k))``, the standard inverse document frequency."""
        return np.log(self.n_docs / self.df)

    @property
    def mean(self) -> np.ndarray:
        """Mean rank of the training documents containing ``t_k``."""
        return self.counts @ self.ranks / self.df

    @property
    def var(self) -> np.ndarray:
        """``Var(t_k)``: population variance of the ranks of the training documents containing ``t_k``."""
        deviation = self.ranks[None, :] - self.mean[:, None]
        return (self.counts * deviation**2).sum(axis=1) / self.df

    @property
    def closest_rank(self) -> np.ndarray:
        """Index of the rank closest to each feature's mean rank (the lower one on a tie)."""
        return np.argmin(np.abs(self.ranks[None, :] - self.mean[:, None]), axis=1)


def rank_stats(presence, y, ranks=None) -> RankStats:
    """Count, for every feature and rank, the training documents of that rank containing the feature.

    Parameters
    ----------
    presence : scipy.sparse matrix or array, shape (n_docs, n_features)
        Any non-zero entry means the feature occurs in the document.
    y : array-like of int, shape (n_docs,)
        True rank of every document.
    ranks : array-like of int, optional
        The ordered rank values (default: 1-5 stars). Every label must be one of them.

    Returns
    -------
    RankStats

    Raises
    ------
    ValueError
        If a label is not a rank or a feature occurs in no document.
    """
    ranks = np.asarray([1, 2, 3, 4, 5] if ranks is None else ranks)
    y = np.asarray(y)
    position = np.searchsorted(ranks, y)
    if np.any(position >= len(ranks)) or np.any(ranks[np.minimum(position, len(ranks) - 1)] != y):
        raise ValueError(f"labels {sorted(set(y.tolist()) - set(ranks.tolist()))} are not ranks {ranks.tolist()}")
    onehot = sp.csr_matrix((np.ones(len(y)), (np.arange(len(y)), position)), shape=(len(y), len(ranks)))
    binary = sp.csr_matrix(presence, dtype=float, copy=True)
    binary.data[:] = 1.0
    binary.eliminate_zeros()
    counts = np.asarray((binary.T @ onehot).todense(), dtype=float)
    if np.any(counts.sum(axis=1) == 0):
        raise ValueError("a feature occurs in no training document; fit the vocabulary on the same documents")
    return RankStats(counts=counts, ranks=ranks.astype(float), class_sizes=np.bincount(position, minlength=len(ranks)))


def order_by_score(score: np.ndarray) -> np.ndarray:
    """Feature indices by decreasing score, ties by increasing index.

    Scores are rounded to 12 decimals first, so that equal values reached by
    different floating-point summation orders count as ties.
    """
    return np.argsort(-np.round(np.asarray(score, dtype=float), 12), kind="stable")


def order_by_score_then(score: np.ndarray, then: np.ndarray) -> np.ndarray:
    """Feature indices by decreasing score, ties by increasing ``then``, then by increasing index.

    Both keys are rounded to 12 decimals first, as in :func:`order_by_score`.
    """
    score = np.round(np.asarray(score, dtype=float), 12)
    then = np.round(np.asarray(then, dtype=float), 12)
    return np.lexsort((np.arange(len(score)), then, -score))


def _grouped_round_robin(score: np.ndarray, group: np.ndarray, n_groups: int, order=None) -> np.ndarray:
    """Sort each group's features by decreasing score (or by ``order``) and let the groups pick in turn."""
    order = order_by_score(score) if order is None else order
    return round_robin([order[group[order] == j] for j in range(n_groups)])


def information_gain(joint: np.ndarray) -> np.ndarray:
    """Information gain between feature presence and class, from joint counts or probabilities.

    Parameters
    ----------
    joint : numpy.ndarray, shape (n_features, 2, n_classes)
        ``joint[k, 0, c]``: documents (or mass) of class ``c`` containing
        feature ``k``; ``joint[k, 1, c]``: of class ``c`` not containing it.

    Returns
    -------
    numpy.ndarray
        ``IG(t_k, C) = sum_{x in {t, not t}} sum_c P(x, c) ln(P(x, c) / (P(x) P(c)))``
        (natural logarithm, ``0 ln 0 = 0``).
    """
    p = joint / joint.sum(axis=(1, 2), keepdims=True)
    p_x = p.sum(axis=2, keepdims=True)
    p_c = p.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / (p_x * p_c)), 0.0)
    return terms.sum(axis=(1, 2))


# --- the three baselines ---------------------------------------------------------------------


def var_order(stats: RankStats) -> np.ndarray:
    """``Var`` (minimum variance; Baccianella et al., ECIR 2009).

    ``Score(t_k) = -Var(t_k)``, where ``Var(t_k)`` is the variance of the
    true ranks of the training documents that contain ``t_k``: features
    whose documents concentrate on one rank come first. A feature occurring
    in documents of a single rank (every hapax legomenon among them) has
    variance 0 and is top-ranked, the weakness ``Var*IDF`` addresses.
    """
    return order_by_score(-stats.var)


def rr_var_order(stats: RankStats) -> np.ndarray:
    """``RR(Var)`` (round robin on minimum variance; Baccianella et al., ECIR 2009).

    Each feature is assigned to the rank closest to its mean rank (the lower
    rank on a tie); each rank orders its features by increasing ``Var(t_k)``;
    the ranks then pick their best remaining feature in turn (``r_1`` first),
    so every rank contributes about ``x/n`` of the ``x`` selected features.
    """
    return _grouped_round_robin(-stats.var, stats.closest_rank, len(stats.ranks))


#: Values of ``ordinal.run.prp_weights``: the redistribution of probability mass (default) and the
#: earlier smoothing of class-conditional probabilities, kept for the sensitivity table.
PRP_WEIGHTS = ("redistribute", "average")


def rank_similarity(n_ranks: int, spread: float = 2.0) -> np.ndarray:
    """Inter-class similarity of an ordinal scale: ``s_ij = max(0, 1 - |i - j| / spread)``.

    With ``spread = 2`` a rank is fully similar to itself, half to each
    adjacent rank and not at all to ranks further away.
    """
    distance = np.abs(np.arange(n_ranks)[:, None] - np.arange(n_ranks)[None, :])
    return np.maximum(0.0, 1.0 - distance / spread)


def prp_joint(stats: RankStats, *, spread: float = 2.0) -> np.ndarray:
    """Feature/rank joint counts after the probability re-distribution (Mukras et al., 2007).

    Each rank ``r_i`` hands its mass on to the ranks similar to it, in
    proportion to :func:`rank_similarity` and without creating or losing
    mass: ``w_ij = s_ij / sum_j s_ij`` (each row of ``W`` sums to 1). The
    presence counts ``#(t_k, r_i)`` and the absence counts
    ``|Tr_i| - #(t_k, r_i)`` are redistributed alike, ``N' = N W``, so the
    result is again a joint distribution of (presence, rank) with the same
    document frequency ``#(t_k)`` and the same ``|Tr|``.

    Returns
    -------
    numpy.ndarray, shape (n_features, 2, n_ranks)
        ``[:, 0, j]`` redistributed presence, ``[:, 1, j]`` redistributed absence in rank ``r_j``.
    """
    similarity = rank_similarity(len(stats.ranks), spread)
    weights = similarity / similarity.sum(axis=1, keepdims=True)
    present = stats.counts
    absent = stats.class_sizes[None, :] - stats.counts
    return np.stack([present @ weights, absent @ weights], axis=1)


def prp_scores(stats: RankStats, *, spread: float = 2.0, weights: str = "redistribute") -> np.ndarray:
    """``PRP`` scores: information gain after the probability re-distribution procedure (Mukras et al., 2007).

    The procedure makes a feature that is spread over *similar*
    (neighbouring) ranks look more informative than one spread over
    dissimilar ranks, before ordinary multi-class information gain ranks the
    features: ``Score(t_k) = IG(t_k, R)`` on the redistributed joint
    distribution.

    ``weights="redistribute"`` (default): each rank's probability mass is
    shared out among similar ranks, mass-conserving (:func:`prp_joint`).
    This follows what Mukras et al.'s abstract states (feature distributions
    revised by inter-class similarity, then information gain); their exact
    formula and similarity values were not available, so the similarity of
    :func:`rank_similarity` is kernbench's (README, "PRP definition").

    ``weights="average"`` (the earlier kernbench weights): the class-conditional
    ``P(t_k | r_j) = #(t_k, r_j) / |Tr_j|`` is replaced by its similarity-weighted
    average over the ranks, ``P'(t_k | r_j) = sum_i w_ij P(t_k | r_i)`` with
    ``w_ij = s_ij / sum_i s_ij`` (normalised over the *giving* ranks), and the
    joint is ``P'(t_k | r_j) P(r_j)``, ``(1 - P'(t_k | r_j)) P(r_j)``.
    """
    if weights == "redistribute":
        return information_gain(prp_joint(stats, spread=spread))
    if weights == "average":
        similarity = rank_similarity(len(stats.ranks), spread)
        w = similarity / similarity.sum(axis=0, keepdims=True)
        redistributed = (stats.counts / stats.class_sizes[None, :]) @ w
        prior = stats.class_sizes / stats.n_docs
        return information_gain(np.stack([redistributed * prior, (1.0 - redistributed) * prior], axis=1))
    raise ValueError(f"unknown PRP weights {weights!r}; expected one of {list(PRP_WEIGHTS)}")


def prp_order(stats: RankStats, *, spread: float = 2.0, weights: str = "redistribute") -> np.ndarray:
    """``PRP``: features by decreasing :func:`prp_scores`."""
    return order_by_score(prp_scores(stats, spread=spread, weights=weights))


# --- the four new methods ----------------------------------------------------------------------


def var_idf_scores(stats: RankStats, *, a: float, epsilon: float = 0.1) -> np.ndarray:
    """``Var*IDF`` scores, Eq. 1: ``Score(t_k) = -(Var(t_k) + epsilon) * IDF(t_k)^a``.

    ``epsilon = 0.1`` smooths zero variances so that a rare (high-IDF)
    feature scores below a frequent one of equal variance; ``a`` weighs IDF
    against variance and is tuned on the validation set.
    """
    return -(stats.var + epsilon) * stats.idf**a


def var_idf_order(stats: RankStats, *, a: float, epsilon: float = 0.1) -> np.ndarray:
    """``Var*IDF``: features by decreasing :func:`var_idf_scores`."""
    return order_by_score(var_idf_scores(stats, a=a, epsilon=epsilon))


def rr_var_idf_order(stats: RankStats, *, a: float, epsilon: float = 0.1) -> np.ndarray:
    """``RR(Var*IDF)``: Eq. 1 scores with a round robin across ranks.

    (i) Each feature is provisionally assigned to the rank closest to the
    mean of its distribution across the ranks (the lower rank on a tie);
    (ii) each rank sorts its features by decreasing Eq. 1 score; (iii) the
    ranks take turns picking their best remaining feature (``r_1`` first).
    """
    return _grouped_round_robin(var_idf_scores(stats, a=a, epsilon=epsilon), stats.closest_rank, len(stats.ranks))


def igor_scores(stats: RankStats) -> np.ndarray:
    """``IG(t_k, c_j)`` for the ``n - 1`` cumulative splits ``c_j = r_1 ∪ ... ∪ r_j`` against the rest.

    Returns
    -------
    numpy.ndarray, shape (n_features, n_ranks - 1)
        Column ``j - 1`` is the information gain of feature presence for the
        binary split between ranks ``<= r_j`` and ranks ``> r_j``.
    """
    below = np.cumsum(stats.counts, axis=1)[:, :-1]
    below_sizes = np.cumsum(stats.class_sizes)[:-1]
    df = stats.df[:, None]
    columns = []
    for j in range(len(stats.ranks) - 1):
        present = np.stack([below[:, j], df[:, 0] - below[:, j]], axis=1)
        absent = np.stack(
            [below_sizes[j] - below[:, j], stats.n_docs - below_sizes[j] - (df[:, 0] - below[:, j])], axis=1
        )
        columns.append(information_gain(np.stack([present, absent], axis=1)))
    return np.stack(columns, axis=1)


def rr_igor_order(stats: RankStats) -> np.ndarray:
    """``RR(IGOR)``: information gain for ordinal regression, round robin across the ``n - 1`` splits.

    For every binary classifier ``j = 1 .. n-1`` separating ``r_1 .. r_j``
    from ``r_{j+1} .. r_n``, the features are sorted by decreasing
    ``IG(t_k, c_j)`` (:func:`igor_scores`); the classifiers take turns
    (``j = 1`` first) picking their best feature not already picked.
    """
    scores = igor_scores(stats)
    return round_robin([order_by_score(scores[:, j]) for j in range(scores.shape[1])])


def nc_table(stats: RankStats) -> np.ndarray:
    """Negative correlation ``NC_Tr(t_k, r_j)`` of every feature with every rank.

    ``NC_Tr(t_k, r_j) = sum_{d in Tr, t_k in d} E(Phi~_j, d) / #(t_k)`` with
    ``E(Phi~_j, d) = |r_j - Phi(d)|``, the error of the trivial classifier
    that puts every document in ``r_j``: the mean absolute distance between
    ``r_j`` and the ranks of the documents containing ``t_k``.

    Returns
    -------
    numpy.ndarray, shape (n_features, n_ranks)
    """
    distance = np.abs(stats.ranks[:, None] - stats.ranks[None, :])
    return stats.counts @ distance / stats.df[:, None]


def rr_nc_idf_scores(stats: RankStats, *, a: float, epsilon: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 2 scores and the rank ``R(t_k)`` of every feature.

    ``R(t_k) = argmin_j NC_Tr(t_k, r_j)`` (the lower rank on a tie);
    ``Score(t_k) = -(NC_Tr(t_k, R(t_k)) + epsilon) * IDF(t_k)^a``.

    Returns
    -------
    score : numpy.ndarray, shape (n_features,)
    rank : numpy.ndarray of int, shape (n_features,)
        Index of ``R(t_k)`` in ``stats.ranks``.

    Raises
    ------
    ValueError
        If ``epsilon`` is negative.
    """
    if epsilon < 0:
        raise ValueError(f"ordinal.run.nc_epsilon = {epsilon!r}: the smoothing of NC must be >= 0")
    nc = nc_table(stats)
    best = np.argmin(nc, axis=1)
    return -(nc[np.arange(len(best)), best] + epsilon) * stats.idf**a, best


def rr_nc_idf_order(stats: RankStats, *, a: float, epsilon: float = 0.1) -> np.ndarray:
    """``RR(NC*IDF)``, Eq. 2, with a round robin across ranks.

    Scores and ranks :func:`rr_nc_idf_scores`. The summary prints Eq. 2
    without the ``epsilon`` of Eq. 1; ``epsilon`` (``ordinal.run.nc_epsilon``)
    is added for the reason Eq. 1 gives: a feature whose documents all have
    one rank has NC 0, and without smoothing its score is 0, the highest,
    whatever its IDF and ``a``. Each rank ``r_j`` sorts the features with
    ``R(t_k) = r_j`` by decreasing score and the ranks pick in turn, ``r_1``
    first.

    Equal scores go to the lower ``IDF(t_k)^a`` first, then to the lower
    feature index. With ``epsilon > 0`` this tie-break almost never acts (two
    features would need equal products with different factors). With
    ``epsilon = 0`` it decides among every rank-pure feature (NC 0) and every
    feature in all training documents (IDF 0), which all score 0: it gives the
    order of the limit ``epsilon -> 0+``, in which Eq. 2's IDF factor still
    puts the frequent rank-pure features before the hapaxes, instead of an
    alphabetical choice among them.
    """
    score, best = rr_nc_idf_scores(stats, a=a, epsilon=epsilon)
    order = order_by_score_then(score, stats.idf**a)
    return _grouped_round_robin(score, best, len(stats.ranks), order)


def feature_order(
    method: str,
    stats: RankStats,
    *,
    a: float | None = None,
    epsilon: float = 0.1,
    nc_epsilon: float = 0.1,
    prp_spread: float = 2.0,
    prp_weights: str = "redistribute",
) -> np.ndarray:
    """Ordering of all features by one of the seven selection methods.

    Parameters
    ----------
    method : str
        ``Var``, ``RR(Var)``, ``PRP``, ``RR(IGOR)``, ``Var*IDF``, ``RR(Var*IDF)`` or ``RR(NC*IDF)``.
    stats : RankStats
        Counts of the training set.
    a : float, optional
        IDF exponent; required by ``Var*IDF``, ``RR(Var*IDF)`` and ``RR(NC*IDF)``.
    epsilon : float
        Smoothing of Var in Eq. 1 (``Var*IDF``, ``RR(Var*IDF)``).
    nc_epsilon : float
        Smoothing of NC in Eq. 2 (``RR(NC*IDF)``); 0 is Eq. 2 as printed.
    prp_spread : float
        Reach of the PRP redistribution (see :func:`rank_similarity`).
    prp_weights : str
        ``redistribute`` or ``average`` (see :func:`prp_scores`).

    Returns
    -------
    numpy.ndarray
        A permutation of ``range(n_features)``, best feature first.
    """
    plain = {
        "Var": var_order,
        "RR(Var)": rr_var_order,
        "PRP": lambda s: prp_order(s, spread=prp_spread, weights=prp_weights),
        "RR(IGOR)": rr_igor_order,
    }
    with_a = {"Var*IDF": var_idf_order, "RR(Var*IDF)": rr_var_idf_order, "RR(NC*IDF)": rr_nc_idf_order}
    if method in plain:
        return plain[method](stats)
    if method in with_a:
        if a is None:
            raise ValueError(f"method {method!r} needs the IDF exponent a")
        return with_a[method](stats, a=a, epsilon=nc_epsilon if method == "RR(NC*IDF)" else epsilon)
    raise ValueError(f"unknown feature selection method {method!r}; expected one of {[*plain, *with_a]}")
