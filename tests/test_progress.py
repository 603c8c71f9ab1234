"""Progress bars go to standard error and leave every computed number as it was."""

from __future__ import annotations

import numpy as np
import pytest

from kernbench.kernels import anygram
from kernbench.kernels.ngtk import ngtk_gram
from kernbench.progress import ENVIRONMENT_SWITCH, progress


def test_progress_passes_items_through_and_reports_on_stderr(capsys):
    assert list(progress(iter("abc"), desc="letters", total=3, unit="letter")) == ["a", "b", "c"]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "letters" in captured.err and "3/3" in captured.err and "letter" in captured.err


@pytest.mark.parametrize(("items", "switch"), [([1], "1"), ([1, 2, 3], "0")])
def test_no_bar_for_one_item_or_when_switched_off(capsys, monkeypatch, items, switch):
    monkeypatch.setenv(ENVIRONMENT_SWITCH, switch)
    assert list(progress(items, desc="quiet")) == items
    assert capsys.readouterr().err == ""


def test_gram_batches_report_progress_without_changing_the_matrix(capsys, monkeypatch):
    rng = np.random.default_rng(3)
    X = [rng.integers(0, 6, rng.integers(1, 10)) for _ in range(30)]
    masks = [rng.integers(0, 2, s.size) for s in X]
    one_batch = ngtk_gram(X, variant="sm", lam=0.4, aspect_x=masks)
    assert capsys.readouterr().err == ""  # a single batch: no bar

    monkeypatch.setattr(anygram, "_PAIR_BATCH", 60)  # two rows of 30 pairs per batch: 15 batches
    batched = ngtk_gram(X, variant="sm", lam=0.4, aspect_x=masks)
    err = capsys.readouterr().err
    assert "Gram 30x30" in err and "15/15" in err
    np.testing.assert_array_equal(batched, one_batch)
