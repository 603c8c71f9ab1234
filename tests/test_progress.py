"""Progress bars go to standard error and leave every computed number as it was."""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
import pytest

from kernbench.kernels import anygram
from kernbench.kernels.ngtk import ngtk_gram
from kernbench.progress import ENVIRONMENT_SWITCH, bar_options, progress


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


def test_a_bar_in_a_log_redraws_at_most_every_30_seconds(capsys):
    def slow():
        for i in range(200):
            time.sleep(0.01)
            yield i

    # Two seconds of work: a terminal's rate (1 s) draws a line more, tqdm's own (0.1 s) about twenty more.
    assert sum(progress(slow(), desc="slow", total=200)) == sum(range(200))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "0/200" in lines[0] and "200/200" in lines[1]


def test_bar_options_draw_the_bars_tqdm_makes_itself_as_progress_does(capsys):
    from tqdm import tqdm

    assert bar_options(1)["disable"] and not bar_options(2)["disable"]
    with tqdm(total=3, desc="own", **bar_options(3)) as bar:
        bar.update(3)
    assert capsys.readouterr().err.splitlines()[-1].startswith("own: 100%|##########| 3/3")


def test_closing_a_bar_after_its_last_redraw_writes_no_second_last_line(capsys):
    from tqdm import tqdm

    with tqdm(total=2, desc="drawn", **{**bar_options(2), "mininterval": 0}) as bar:  # every update redraws
        bar.update(1)
        bar.update(1)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("|")[0] for line in lines] == ["drawn:   0%", "drawn:  50%", "drawn: 100%"]


def test_lstm_training_reports_its_epochs_with_their_metrics_and_eta_on_stderr(capsys):
    from kernbench.papers.anygram import lstm

    lstm.configure_tensorflow(1)
    rng = np.random.default_rng(0)
    words = np.array(["good", "bad", "fine", "awful", "the", "film"])
    sentences = [list(rng.choice(words, size=rng.integers(2, 6))) for _ in range(36)]
    frame = pd.DataFrame(
        {
            "id": [f"s{i}" for i in range(36)],
            "split": ["train"] * 20 + ["dev"] * 8 + ["test"] * 8,
            "tokens": sentences,
            "label": ["pos" if s.count("good") >= s.count("bad") else "neg" for s in sentences],
        }
    )
    settings = {"batch_size": 5, "layers": 1, "hidden_size": 4, "learning_rate": 0.01, "dropout": 0.0,
                "max_epochs": 3, "patience": 3, "trainable_embeddings": True, "bucket_batches": 1}  # fmt: skip
    result = lstm.train_lstm(
        frame, words, rng.normal(size=(6, 5)).astype(np.float32), cased=False, system="UniLSTM", settings=settings,
        seed=1, dataset="toy",
    )  # fmt: skip
    captured = capsys.readouterr()
    assert "Epoch 1/3" not in captured.out + captured.err  # Keras' own epoch lines are off
    bar = [line for line in captured.err.splitlines() if line.startswith("toy UniLSTM seed 1:")]
    # The bar as it starts and as it ends, and at most one redraw per epoch in between.
    assert len(bar) <= 4 and "0/3" in bar[0] and "3/3" in bar[-1], captured.err
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", bar[-1])  # elapsed < remaining
    val_accuracy = float(re.search(r"val_accuracy=([0-9.]+)", bar[-1]).group(1))
    assert val_accuracy == pytest.approx(result.curves["val_accuracy"][-1], abs=1e-3)
