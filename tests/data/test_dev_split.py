"""The dev hold-out of training files without a dev split."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

from kernbench.data.dev_split import hold_out_dev
from kernbench.errors import DataError

LABELS = np.array(["pos"] * 30 + ["neg"] * 20 + ["neu"] * 10)


def test_rows_are_the_first_stratified_fold():
    mask = hold_out_dev(LABELS, dev_fraction=0.1, seed=3, path="toy.csv")
    _, first = next(StratifiedKFold(10, shuffle=True, random_state=3).split(np.zeros(60), LABELS))
    assert np.flatnonzero(mask).tolist() == sorted(first.tolist())
    assert {label: int((LABELS[mask] == label).sum()) for label in ("pos", "neg", "neu")} == {"pos": 3, "neg": 2, "neu": 1}


def test_a_group_goes_to_dev_whole():
    groups = np.repeat(np.arange(20), 3)
    mask = hold_out_dev(LABELS, groups=groups, dev_fraction=0.25, seed=1, path="toy.xml")
    _, first = next(StratifiedGroupKFold(4, shuffle=True, random_state=1).split(np.zeros(60), LABELS, groups))
    assert np.flatnonzero(mask).tolist() == sorted(first.tolist())
    for group in range(20):
        assert len(set(mask[groups == group])) == 1


def test_too_few_rows_or_groups_name_the_file():
    with pytest.raises(DataError, match=r"toy\.csv: no dev rows, and the 5 training rows"):
        hold_out_dev(LABELS[:5], dev_fraction=0.1, seed=0, path="toy.csv")
    with pytest.raises(DataError, match=r"toy\.xml: 3 sentences with aspect terms are too few for 10 folds"):
        hold_out_dev(LABELS, groups=np.arange(60) % 3, group_name="sentences with aspect terms", dev_fraction=0.1,
                     seed=0, path="toy.xml")
    with pytest.raises(ValueError, match="dev_fraction"):
        hold_out_dev(LABELS, dev_fraction=1.5, seed=0, path="toy.csv")
