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
    lines = captured.err.splitlines()
    assert "\r" not in captured.err and captured.err.endswith("\n")  # a log file: one line per redraw
    assert lines[0].startswith("letters:   0%") and "0/3" in lines[0]
    assert lines[-1].startswith("letters: 100%") and "3/3" in lines[-1] and "letter/s" in lines[-1]


def test_nested_bars_in_a_log_are_lines_one_after_the_other(capsys):
    for i in progress(range(2), desc="outer"):
        list(progress(range(2), desc=f"inner {i}"))
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in lines] == ["outer", "inner 0", "inner 0", "inner 1", "inner 1", "outer"]
    assert "\x1b" not in "".join(lines)  # no cursor movement


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
