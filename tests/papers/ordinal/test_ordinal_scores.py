"""Feature scoring functions of the ordinal stage on a hand-made corpus, with rankings worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernbench.papers.ordinal.scores import (
    feature_order,
    igor_scores,
    nc_table,
    prp_joint,
    prp_order,
    prp_scores,
    rank_stats,
    rr_igor_order,
    rr_nc_idf_order,
    rr_nc_idf_scores,
    rr_var_idf_order,
    rr_var_order,
    var_idf_order,
    var_idf_scores,
    var_order,
)

# Six documents, two per rank of a 3-rank scale: ranks 1, 1, 2, 2, 3, 3.
RANKS = [1, 2, 3]
LABELS = np.array([1, 1, 2, 2, 3, 3])
# Documents holding each feature, and (by hand) the ranks of those documents.
DOCS = {
    0: [0, 1],  # ranks 1,1:     mean 1,    Var 0,    df 2
    1: [4, 5],  # ranks 3,3:     mean 3,    Var 0,    df 2
    2: [0, 2, 4],  # 1,2,3:      mean 2,    Var 2/3,  df 3
    3: [3],  # rank 2 (hapax):   mean 2,    Var 0,    df 1
    4: [0, 1, 2, 3],  # 1,1,2,2: mean 1.5,  Var 1/4,  df 4 (tie between ranks 1 and 2 -> rank 1)
    5: [0, 5],  # ranks 1,3:     mean 2,    Var 1,    df 2
    6: [0, 1, 4],  # 1,1,3:      mean 5/3,  Var 8/9,  df 3 (closest rank 2; median rank 1)
}


def _presence(docs, n_docs=6):
    rows = [d for f in sorted(docs) for d in docs[f]]
    cols = [f for f in sorted(docs) for _ in docs[f]]
    # tf-idf-like weights: only presence matters
    return sp.csr_matrix((np.linspace(0.3, 2.0, len(rows)), (rows, cols)), shape=(n_docs, len(docs)))


@pytest.fixture
def stats():
    return rank_stats(_presence(DOCS), LABELS, ranks=RANKS)


def test_rank_statistics_by_hand(stats):
    assert stats.df.tolist() == [2, 2, 3, 1, 4, 2, 3]
    np.testing.assert_allclose(stats.mean, [1, 3, 2, 2, 1.5, 2, 5 / 3])
    np.testing.assert_allclose(stats.var, [0, 0, 2 / 3, 0, 0.25, 1, 8 / 9])
    np.testing.assert_allclose(stats.idf, np.log([3, 3, 2, 6, 1.5, 3, 2]))
    assert stats.closest_rank.tolist() == [0, 2, 1, 1, 0, 1, 1]


def test_var_ranks_zero_variance_first_hapax_included(stats):
    # Var: 0 (f0, f1, f3), 1/4 (f4), 2/3 (f2), 8/9 (f6), 1 (f5)
    assert var_order(stats).tolist() == [0, 1, 3, 4, 2, 6, 5]


def test_rr_var_round_robin_across_ranks(stats):
    # rank 1: f0 (0), f4 (1/4); rank 2: f3 (0), f2 (2/3), f6 (8/9), f5 (1); rank 3: f1 (0)
    # turns r1 r2 r3 r1 r2 (r3 done) (r1 done) r2 ...
    assert rr_var_order(stats).tolist() == [0, 3, 1, 4, 2, 6, 5]


def test_var_idf_pushes_the_hapax_down(stats):
    # a = 1: -(Var + 0.1) * IDF = f0 -0.1099, f1 -0.1099, f4 -0.1419, f3 -0.1792, f2 -0.5314, f6 -0.6855, f5 -1.2085
    scores = var_idf_scores(stats, a=1.0)
    assert scores[3] == pytest.approx(-0.1 * np.log(6))
    assert scores[6] == pytest.approx(-(8 / 9 + 0.1) * np.log(2))
    assert var_idf_order(stats, a=1.0).tolist() == [0, 1, 4, 3, 2, 6, 5]
    # a = 0 is Var with a constant shift: the same ranking
    assert var_idf_order(stats, a=0.0).tolist() == var_order(stats).tolist()


def test_rr_var_idf_round_robin_with_large_a(stats):
    # a = 3: rank 1: f4 (-0.35 * 0.4055^3 = -0.0233), f0 (-0.1326);
    # rank 2: f2 (-0.2553), f6 (-0.3293), f3 (-0.5752), f5 (-1.4586); rank 3: f1
    assert rr_var_idf_order(stats, a=3.0).tolist() == [4, 2, 1, 0, 6, 3, 5]


def test_nc_assigns_the_rank_of_least_error(stats):
    nc = nc_table(stats)
    np.testing.assert_allclose(nc[0], [0, 1, 2])
    np.testing.assert_allclose(nc[4], [0.5, 0.5, 1.5])  # tie: rank 1
    np.testing.assert_allclose(nc[6], [2 / 3, 1, 4 / 3])  # rank 1, although the mean is closest to rank 2
    # a = 3: rank 1: f4 (-0.6 * 0.4055^3 = -0.0400), f0 (-0.1326), f6 (-0.2553), f5 (-1.4586);
    # rank 2: f2 (-0.2553), f3 (-0.5752); rank 3: f1 (-0.1326)
    assert rr_nc_idf_order(stats, a=3.0).tolist() == [4, 2, 1, 0, 3, 6, 5]


def test_nc_without_epsilon_is_eq2_as_printed(stats):
    # epsilon = 0, a = 1: -NC(t, R(t)) * IDF(t): f0 0, f1 0, f3 0 (rank-pure); f4 -0.5 ln 1.5 = -0.2027;
    # f2 -(2/3) ln 2 = -0.4621 (rank 2); f6 -(2/3) ln 2 (rank 1); f5 -1 * ln 3 = -1.0986 (ranks tie at 1: rank 1)
    score, rank = rr_nc_idf_scores(stats, a=1.0, epsilon=0.0)
    by_hand = [0, 0, -2 / 3 * np.log(2), 0, -0.5 * np.log(1.5), -np.log(3), -2 / 3 * np.log(2)]
    np.testing.assert_allclose(score, by_hand)
    assert rank.tolist() == [0, 2, 1, 1, 0, 0, 0]
    # rank 1: f0, f4, f6, f5; rank 2: f3, f2; rank 3: f1
    assert rr_nc_idf_order(stats, a=1.0, epsilon=0.0).tolist() == [0, 3, 1, 4, 2, 6, 5]
    # Without smoothing, a cannot move a rank-pure feature: its score is 0 for every a.
    for a in (0.5, 4.0, 16.0):
        assert rr_nc_idf_scores(stats, a=a, epsilon=0.0)[0][[0, 1, 3]].tolist() == [0, 0, 0]


def test_nc_epsilon_zero_ties_go_to_the_lower_idf_as_in_the_limit():
    # Four documents of rank 1, two of rank 2 (3-rank scale, rank 3 empty is not allowed: use ranks 1, 2).
    labels = np.array([1, 1, 1, 1, 2, 2])
    # f0: a rank-1 hapax (IDF ln 6); f1: in three rank-1 documents (IDF ln 2); f2: in every document (IDF 0);
    # f3: rank 2 only, two documents (IDF ln 3)
    presence = _presence({0: [0], 1: [0, 1, 2], 2: [0, 1, 2, 3, 4, 5], 3: [4, 5]})
    stats = rank_stats(presence, labels, ranks=[1, 2])
    score, rank = rr_nc_idf_scores(stats, a=2.0, epsilon=0.0)
    assert score.tolist() == [0, 0, 0, 0] and rank.tolist() == [0, 0, 0, 1]
    # All four score 0: the lower IDF^a goes first (f2, IDF 0; then f1 before the hapax f0), not the lower index.
    assert rr_nc_idf_order(stats, a=2.0, epsilon=0.0).tolist() == [2, 3, 1, 0]
    # ... which is the order every small epsilon gives
    assert rr_nc_idf_order(stats, a=2.0, epsilon=1e-6).tolist() == [2, 3, 1, 0]
    assert rr_nc_idf_order(stats, a=2.0, epsilon=0.1).tolist() == [2, 3, 1, 0]


def test_nc_epsilon_is_its_own_key_and_must_not_be_negative(stats):
    # RR(NC*IDF) reads nc_epsilon, Var*IDF reads epsilon
    assert feature_order("RR(NC*IDF)", stats, a=1.0, epsilon=5.0, nc_epsilon=0.0).tolist() == (
        rr_nc_idf_order(stats, a=1.0, epsilon=0.0).tolist()
    )
    assert feature_order("Var*IDF", stats, a=1.0, epsilon=0.1, nc_epsilon=0.0).tolist() == (
        var_idf_order(stats, a=1.0, epsilon=0.1).tolist()
    )
    with pytest.raises(ValueError, match="nc_epsilon = -0.1"):
        feature_order("RR(NC*IDF)", stats, a=1.0, nc_epsilon=-0.1)


def test_igor_round_robin_over_cumulative_splits(stats):
    ig = igor_scores(stats)
    h = -(np.log(1 / 3) / 3 + 2 * np.log(2 / 3) / 3)  # entropy of a 2:4 split
    # split {1} vs {2,3}: f0 separates perfectly; f6: present 2:1, absent 0:3
    assert ig[0, 0] == pytest.approx(h)
    assert ig[6, 0] == pytest.approx(h - 0.5 * h)
    assert ig[2, 0] == pytest.approx(0.0, abs=1e-12)
    # split {1,2} vs {3}: f1 and f4 separate perfectly
    assert ig[1, 1] == pytest.approx(h) and ig[4, 1] == pytest.approx(h)
    # split 1 order: f0 .637, f6 .318, f1 .174, f4 .174, f3 .076, f5 .031, f2 0
    # split 2 order: f1 .637, f4 .637, f0 .174, f3 .076, f5 .031, f2 0, f6 0
    assert rr_igor_order(stats).tolist() == [0, 1, 6, 4, 3, 5, 2]


def _information_gain_by_entropies(joint):
    """IG = H(R) - P(t) H(R | t) - P(not t) H(R | not t), from a 2 x n table of counts."""
    joint = np.asarray(joint, dtype=float)

    def entropy(counts):
        p = counts[counts > 0] / counts.sum()
        return -(p * np.log(p)).sum()

    p_t = joint[0].sum() / joint.sum()
    return entropy(joint.sum(axis=0)) - p_t * entropy(joint[0]) - (1 - p_t) * entropy(joint[1])


def test_prp_redistributes_each_ranks_mass_to_similar_ranks_by_hand():
    # f0 in ranks 1 and 3, f1 in ranks 1 and 2, f2 only in rank 1 (two documents each; two documents per rank)
    stats = rank_stats(_presence({0: [0, 4], 1: [0, 2], 2: [0, 1]}), LABELS, ranks=RANKS)
    # Similarity (spread 2) [[1, .5, 0], [.5, 1, .5], [0, .5, 1]]; each rank gives its mass away in proportion:
    # rank 1 -> [2/3, 1/3, 0], rank 2 -> [1/4, 1/2, 1/4], rank 3 -> [0, 1/3, 2/3].
    # f1: present [1, 1, 0] -> [2/3 + 1/4, 1/3 + 1/2, 1/4] = [11, 10, 3] / 12,
    #     absent  [1, 1, 2] -> [2/3 + 1/4, 1/3 + 1/2 + 2/3, 1/4 + 4/3] = [11, 18, 19] / 12.
    # f0: present [1, 0, 1] -> [8, 8, 8] / 12 (spread evenly: no information left), absent [1, 2, 1] -> [14, 20, 14] / 12.
    # f2: present [2, 0, 0] -> [16, 8, 0] / 12, absent [0, 2, 2] -> [6, 20, 22] / 12.
    by_hand = np.array([
        [[8, 8, 8], [14, 20, 14]],
        [[11, 10, 3], [11, 18, 19]],
        [[16, 8, 0], [6, 20, 22]],
    ]) / 12
    np.testing.assert_allclose(prp_joint(stats), by_hand)
    # Mass is conserved: document frequency and |Tr| unchanged.
    np.testing.assert_allclose(prp_joint(stats)[:, 0].sum(axis=1), [2, 2, 2])
    np.testing.assert_allclose(prp_joint(stats).sum(axis=(1, 2)), 6)
    expected = [_information_gain_by_entropies(t) for t in by_hand]
    np.testing.assert_allclose(prp_scores(stats), expected)
    np.testing.assert_allclose(expected, [0.00328158, 0.04955336, 0.22481269], atol=1e-8)
    # Adjacent ranks (f1) now beat ranks 1 and 3 (f0), which plain information gain cannot tell apart.
    plain = prp_scores(stats, spread=0.5)
    assert plain[0] == pytest.approx(plain[1])
    assert prp_order(stats).tolist() == [2, 1, 0]
    assert feature_order("PRP", stats).tolist() == [2, 1, 0]


def test_prp_average_weights_are_the_earlier_smoothing():
    # f0 in ranks 1 and 3, f1 in ranks 1 and 2, f2 only in rank 1 (two documents each)
    stats = rank_stats(_presence({0: [0, 4], 1: [0, 2], 2: [0, 1]}), LABELS, ranks=RANKS)
    # Smoothing, by hand: P'(f0 | r) = [1/3, 1/4, 1/3], P'(f1 | r) = [1/2, 3/8, 1/6]
    redistributed = np.array([[1 / 3, 1 / 4, 1 / 3], [1 / 2, 3 / 8, 1 / 6]])
    prior = np.full(3, 1 / 3)
    p_t = redistributed @ prior
    h = np.log(3)

    def cond_entropy(p):
        return -(p * np.log(p)).sum()

    by_hand = [
        h
        - p_t[k] * cond_entropy(redistributed[k] * prior / p_t[k])
        - (1 - p_t[k]) * cond_entropy((1 - redistributed[k]) * prior / (1 - p_t[k]))
        for k in range(2)
    ]
    np.testing.assert_allclose(prp_scores(stats, weights="average")[:2], by_hand)
    assert prp_order(stats, weights="average").tolist() == [2, 1, 0]
    assert not np.allclose(prp_scores(stats, weights="average"), prp_scores(stats))
    with pytest.raises(ValueError, match="unknown PRP weights"):
        prp_scores(stats, weights="even")


def test_every_method_returns_a_permutation(stats):
    for method in ("Var", "RR(Var)", "PRP", "RR(IGOR)"):
        assert sorted(feature_order(method, stats).tolist()) == list(range(7))
    for method in ("Var*IDF", "RR(Var*IDF)", "RR(NC*IDF)"):
        assert sorted(feature_order(method, stats, a=2.0).tolist()) == list(range(7))
        with pytest.raises(ValueError, match="needs the IDF exponent"):
            feature_order(method, stats)
    with pytest.raises(ValueError, match="unknown"):
        feature_order("IG", stats)


def test_labels_outside_the_ranks_are_rejected():
    with pytest.raises(ValueError, match="not ranks"):
        rank_stats(_presence(DOCS), np.array([1, 1, 2, 2, 3, 6]), ranks=RANKS)
