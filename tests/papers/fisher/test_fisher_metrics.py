"""The Fisher paper's average precision (Section 5), its other reading, and the choice of c by cross-validation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from kernbench.metrics import precision_at_positive_predictions, ranking_scores, thresholded_average_precision
from kernbench.papers.fisher.experiment import build_features, category_labels, choose_c, feature_counts
from kernbench.report.uncertainty import METRICS, paired_comparison
from tests.papers.fisher.test_fisher_cli import PARAMS, SVM, _corpus

# Hand-worked ranking, SVM threshold 0 (documents scoring > 0 are positively classified):
#   rank   1     2     3     4     5     6
#   score  2.0   1.5   1.0   0.5  -0.5  -1.0
#   rel    yes   no    yes   yes   no    yes
#   P@rank 1/1   1/2   2/3   3/4   3/5   4/6
# The paper's AP, over the relevant positively classified documents (ranks 1, 3, 4):
#   (1 + 2/3 + 3/4) / 3 = 29/36 = 0.8056
# scikit-learn's AP over the whole ranking also counts the relevant document below the threshold (rank 6):
#   (1 + 2/3 + 3/4 + 4/6) / 4 = 37/48 = 0.7708
# The other reading, over every positively classified document (ranks 1-4):
#   (1 + 1/2 + 2/3 + 3/4) / 4 = 35/48 = 0.7292
HAND_SCORES = np.array([1.0, -1.0, 2.0, 0.5, -0.5, 1.5])  # shuffled: the measure sorts
HAND_TRUE = np.array([True, True, True, True, False, False])


def test_hand_worked_ranking_that_the_full_ranking_ap_gets_wrong():
    assert thresholded_average_precision(HAND_TRUE, HAND_SCORES) == pytest.approx(29 / 36)
    assert average_precision_score(HAND_TRUE, HAND_SCORES) == pytest.approx(37 / 48)  # today's measure differs
    assert precision_at_positive_predictions(HAND_TRUE, HAND_SCORES) == pytest.approx(35 / 48)
    scores = ranking_scores(HAND_TRUE, HAND_SCORES, HAND_SCORES > 0)
    assert scores["average_precision"] == pytest.approx(29 / 36)
    assert scores["average_precision_ranking"] == pytest.approx(37 / 48)
    for metric, expected in [("average_precision", 29 / 36), ("average_precision_ranking", 37 / 48),
                             ("precision_at_positive_predictions", 35 / 48)]:
        assert METRICS[metric][0](HAND_TRUE, HAND_SCORES) == pytest.approx(expected)


def test_ties_take_the_precision_at_the_end_of_their_group_and_edge_cases():
    # Ranks 1-2 tie at 1.0 (one relevant): both take P@2 = 1/2; rank 3 (relevant) P@3 = 2/3; -1.0 is below.
    y, s = np.array([False, True, True, False]), np.array([1.0, 1.0, 0.5, -1.0])
    for order in ([0, 1, 2, 3], [1, 0, 2, 3]):
        assert thresholded_average_precision(y[order], s[order]) == pytest.approx((1 / 2 + 2 / 3) / 2)
        assert precision_at_positive_predictions(y[order], s[order]) == pytest.approx((1 / 2 + 1 / 2 + 2 / 3) / 3)
    # A score of exactly 0 is not positively classified.
    assert thresholded_average_precision([True, False], [0.0, -1.0]) == 0.0
    # No relevant document: undefined, as for the ranking AP.
    assert np.isnan(thresholded_average_precision([False, False], [1.0, -1.0]))
    assert np.isnan(precision_at_positive_predictions([False, False], [1.0, -1.0]))
    # Relevant documents, none positively classified: 0 under both readings.
    assert thresholded_average_precision([True, False], [-0.2, -1.0]) == 0.0
    assert precision_at_positive_predictions([True, False], [-0.2, -1.0]) == 0.0
    # Positively classified documents, none relevant: 0.
    assert thresholded_average_precision([False, True], [1.0, -1.0]) == 0.0
    assert precision_at_positive_predictions([False, True], [1.0, -1.0]) == 0.0
    with pytest.raises(ValueError, match="scores > 0"):
        ranking_scores([True, False], [0.3, -0.1], [True, True])


@pytest.mark.parametrize(
    "metric, scalar",
    [("average_precision", thresholded_average_precision),
     ("precision_at_positive_predictions", precision_at_positive_predictions)],
)
def test_vectorised_equals_scalar_on_random_resamples(metric, scalar):
    rng = np.random.default_rng(11)
    n = 120
    y_true = rng.random(n) < 0.2
    score = np.round(1.5 * y_true - 0.8 + rng.normal(0, 0.7, n), 1)  # ties, and some scores exactly 0
    assert (score == 0).any()
    idx = rng.integers(0, n, size=(40, n))
    batch = METRICS[metric][0](y_true[idx], score[idx])
    expected = [scalar(y_true[i], score[i]) for i in idx]
    np.testing.assert_allclose(batch, expected, rtol=1e-12)


def test_paired_comparison_of_two_measures_of_the_same_scores():
    result = paired_comparison("average_precision_ranking", HAND_TRUE, HAND_SCORES, HAND_SCORES,
                               metric_b="average_precision", n_resamples=200, seed=0)
    assert result["difference"] == pytest.approx(37 / 48 - 29 / 36)


def _counts(system="ngram-ln"):
    counts, train, test = feature_counts(_corpus(), system, PARAMS)
    return counts, train, test


def test_choose_c_scores_every_c_on_training_folds_only():
    counts, train, _ = _counts()
    labels = category_labels(train, ["grain", "money-fx"])
    c, scores = choose_c(counts, "ngram-ln", labels, grid=[1, 10, 1000], folds=3, svm=SVM, seed=2)
    assert set(scores) == {"1", "10", "1000"} and all(0 <= v <= 1 for v in scores.values())
    assert scores[str(int(c))] == max(scores.values())
    # The test documents play no part: replacing their text changes nothing.
    frame = _corpus()
    frame.loc[frame["split"] == "test", "text"] = "completely different words"
    other, train2, _ = feature_counts(frame, "ngram-ln", PARAMS)
    assert choose_c(other, "ngram-ln", category_labels(train2, ["grain", "money-fx"]), grid=[1, 10, 1000],
                    folds=3, svm=SVM, seed=2) == (c, scores)


def test_choose_c_takes_the_first_c_on_ties_and_build_features_records_the_choice():
    # ngram-uniform's features do not depend on c: every c scores the same, and the first listed wins.
    counts, train, _ = _counts("ngram-uniform")
    labels = category_labels(train, ["grain"])
    c, scores = choose_c(counts, "ngram-uniform", labels, grid=[100, 1, 10], folds=2, svm=SVM, seed=0)
    assert len(set(scores.values())) == 1 and c == 100
    params = {**PARAMS, "c": "cv", "c_grid": [1, 100], "cv_folds": 2, "categories": ["grain"], **SVM}
    features, _, _ = build_features(_corpus(), "FSA-ln", params, seed=0)
    assert features.info["c"] in (1.0, 100.0) and features.info["c_cv"]["folds"] == 2
    uniform, _, _ = build_features(_corpus(), "FSA-uniform", params, seed=0)
    assert uniform.info["c"] is None and "c_cv" not in uniform.info  # c unused: no cross-validation
    with pytest.raises(Exception, match="cv_folds = 30"):
        build_features(_corpus(), "ngram-ln", {**params, "cv_folds": 30}, seed=0)
