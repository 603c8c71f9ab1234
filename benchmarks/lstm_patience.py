"""Epochs an LSTM run would train, and the epoch it would keep, under a smaller early-stopping patience.

Replays each run record's dev-accuracy curve (``curves.val_accuracy``) through the rule of
Keras' ``EarlyStopping(monitor="val_accuracy", mode="max", restore_best_weights=True)``.
Training is seeded and the callback only stops it, so a run with a smaller patience trains
the same epochs up to its stop: the replay is exact, not an estimate. A run whose kept
epoch changes would report other dev and test numbers.

Usage::

    python benchmarks/lstm_patience.py results/runs/anygram/*/lstm/*.json [--patience 2 3 4 5]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def replay(dev_accuracy: list[float], patience: int) -> tuple[int, int]:
    """The kept (best) epoch and the number of epochs trained under ``patience``.

    Parameters
    ----------
    dev_accuracy : list of float
        Dev accuracy after each epoch, as trained with a patience at least as large.
    patience : int
        Epochs without a strictly better dev accuracy before training stops.

    Returns
    -------
    tuple of int
        ``(best_epoch, epochs)``, both counted from 1.
    """
    best, best_epoch, waited = None, 0, 0
    for epoch, value in enumerate(dev_accuracy, start=1):
        if best is None or value > best:
            best, best_epoch, waited = value, epoch, 0
            continue
        waited += 1
        if waited >= patience:
            return best_epoch, epoch
    return best_epoch, len(dev_accuracy)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", help="LSTM run records (*.json) trained with the largest patience")
    parser.add_argument("--patience", type=int, nargs="+", default=[2, 3, 4, 5])
    args = parser.parse_args(argv)

    curves = {path: json.loads(Path(path).read_text())["curves"]["val_accuracy"] for path in args.records}
    largest = max(args.patience)
    reference = {path: replay(values, largest) for path, values in curves.items()}
    for patience in args.patience:
        replays = {path: replay(values, patience) for path, values in curves.items()}
        changed = sorted(path for path in curves if replays[path][0] != reference[path][0])
        print(json.dumps({
            "patience": patience,
            "epochs": sum(epochs for _, epochs in replays.values()),
            "epochs_at_largest": sum(epochs for _, epochs in reference.values()),
            "runs": len(curves),
            "runs_keeping_another_epoch": len(changed),
            "changed": changed,
        }))  # fmt: skip


if __name__ == "__main__":
    main()
