"""``kernbench anygram-gram`` / ``anygram-svm``: any-gram kernel Gram matrices, then SVC on them."""

from __future__ import annotations

import functools
import json
import logging
import time
from dataclasses import astuple
from pathlib import Path

from kernbench.data import SPLITS
from kernbench.papers.anygram import systems
from kernbench.papers.anygram.kernel_setting import KernelSetting
from kernbench.runs import (
    add_input_arguments, add_plumbing, add_run_arguments, paths_per_run, set_threads, write_run,
)

log = logging.getLogger("kernbench")


def _encoder(args):
    """The token encoder of a Gram job: the embeddings file under the job's ``--encoding``."""
    from kernbench.kernels.anygram_encoding import Encoding, TokenEncoder

    return TokenEncoder.from_npz(args.embeddings, Encoding.from_config(json.loads(args.encoding)))


def grid_choices(chosen: dict, grids: dict) -> dict:
    """``grid_choices`` of a run record: each value chosen on dev with its grid (``runs.grid_choice``).

    Parameters
    ----------
    chosen : dict
        ``SvmResult.chosen``.
    grids : dict
        ``{name: candidates}`` of the values chosen from a grid (``C``, and ``theta`` for a threshold system).
    """
    from kernbench.runs import grid_choice

    return {name: grid_choice(chosen[name], grid) for name, grid in grids.items() if name in chosen and grid}

def _cmd_gram(args) -> None:
    import pandas as pd

    from kernbench.cache import save_dense
    from kernbench.papers.anygram.experiment import SPLITS, compute_grams
    from kernbench.runs import paths_per_run

    out_dirs = paths_per_run(args, ("out_dir",), "kernel", args.kernel, command="anygram-gram")
    settings = {kernel: astuple(KernelSetting.parse(kernel)) for kernel in args.kernel}
    set_threads(args.threads)
    frame = pd.read_parquet(args.prepared)
    encoder = _encoder(args)
    for kernel, (system, lam, theta) in settings.items():
        started = time.perf_counter()
        grams = compute_grams(frame, encoder, system=system, lam=lam, theta=theta, lowercase_sm=not args.cased_sm)
        elapsed = time.perf_counter() - started
        out_dir = Path(out_dirs[kernel]["out_dir"])
        for split in SPLITS:
            gram, diag = grams[split]
            save_dense(out_dir / f"{split}.npz", gram)
            save_dense(out_dir / f"{split}_diag.npz", diag)
        shapes = {s: grams[s][0].shape for s in SPLITS}
        log.info("%s %s: Gram matrices %s in %.1f s", args.dataset, kernel, shapes, elapsed)


def _cmd_gram_tile(args) -> None:
    import pandas as pd

    from kernbench.cache import save_dense
    from kernbench.papers.anygram.experiment import check_tile_rows, compute_gram_tile

    set_threads(args.threads)
    check_tile_rows(args.tile_rows)
    system, lam, theta = astuple(KernelSetting.parse(args.kernel))
    frame = pd.read_parquet(args.prepared)
    encoder = _encoder(args)
    start = args.tile * args.tile_rows
    n_rows = int((frame["split"] == args.split).sum())
    if start >= max(n_rows, 1):
        raise ValueError(f"tile {args.tile} of {args.tile_rows} rows starts past the {n_rows} {args.split} rows")
    stop = min(start + args.tile_rows, n_rows)
    started = time.perf_counter()
    tile = compute_gram_tile(
        frame, encoder, system=system, lam=lam, theta=theta, split=args.split, start=start, stop=stop,
        lowercase_sm=not args.cased_sm,
    )
    save_dense(args.out, tile)
    log.info("%s %s: %s rows %d:%d, %s in %.1f s", args.dataset, args.kernel, args.split, start, stop,
             tile.shape, time.perf_counter() - started)


def _cmd_gram_assemble(args) -> None:
    import numpy as np
    import pandas as pd

    from kernbench.cache import load_dense, save_dense
    from kernbench.errors import DataError
    from kernbench.papers.anygram.experiment import SPLITS, compute_diags

    set_threads(args.threads)
    system, lam, theta = astuple(KernelSetting.parse(args.kernel))
    frame = pd.read_parquet(args.prepared)
    n_train = int((frame["split"] == "train").sum())
    grams = {}
    for split in SPLITS:
        tiles = sorted(
            (Path(t) for t in args.tiles if Path(t).name.startswith(f"{split}_")),
            key=lambda t: int(t.stem.rsplit("_", 1)[1]),
        )
        gram = np.vstack([load_dense(t) for t in tiles]) if tiles else np.zeros((0, n_train))
        expected = (int((frame["split"] == split).sum()), n_train)
        if gram.shape != expected:
            raise DataError(f"{args.kernel} {split}: tiles {[t.name for t in tiles]} give {gram.shape}, expected {expected}")
        grams[split] = gram
    diags = compute_diags(
        frame, _encoder(args), system=system, lam=lam, theta=theta,
        lowercase_sm=not args.cased_sm,
    )
    out_dir = Path(args.out_dir)
    for split in SPLITS:
        save_dense(out_dir / f"{split}.npz", grams[split])
        save_dense(out_dir / f"{split}_diag.npz", diags[split])
    log.info("%s %s: assembled %s from %d tiles", args.dataset, args.kernel, {s: g.shape for s, g in grams.items()},
             len(args.tiles))


def _load_grams(directory: Path) -> dict:
    from kernbench.cache import load_dense
    from kernbench.papers.anygram.experiment import SPLITS

    return {
        split: (load_dense(directory / f"{split}.npz"), load_dense(directory / f"{split}_diag.npz")) for split in SPLITS
    }


def _cmd_svm(args) -> None:
    import argparse

    import pandas as pd

    from kernbench.catalog import catalog
    from kernbench.errors import DataError

    if len(args.settings) != len(args.system):
        raise DataError(f"--settings: one JSON per --system ({len(args.system)}), got {len(args.settings)}")
    set_threads(args.threads)
    spec = catalog()[args.dataset]
    frame = pd.read_parquet(args.prepared)
    grams, lams = {system: {} for system in args.system}, {}
    for directory in args.grams:
        system, lams[system], theta = astuple(KernelSetting.parse(Path(directory).name))
        if system not in grams:
            raise ValueError(f"{directory}: Gram matrices of {system}, not of {' or '.join(args.system)}")
        grams[system][theta] = functools.partial(_load_grams, Path(directory))  # loaded when its turn comes
    outputs = paths_per_run(args, ("record", "predictions", "confusion"), "system", args.system, command="anygram-svm")
    for system, settings in zip(args.system, args.settings):
        if not grams[system]:
            raise DataError(f"--grams: no Gram directory of {system}")
        run_args = argparse.Namespace(**{**vars(args), **outputs[system], "system": system})
        _fit_system(run_args, spec, frame, grams[system], lams[system], json.loads(settings))


def _fit_system(args, spec, frame, grams: dict, lam, settings: dict) -> None:
    """SVC of one kernel system on its Gram matrices (``{theta: loader}``, decay ``lam``), its settings chosen on dev."""
    from kernbench.papers.anygram.experiment import run_svm

    started = time.perf_counter()
    result = run_svm(
        frame, grams, C_grid=settings["C"], normalize_options=settings["normalize"], dataset=spec.name,
        n_jobs=args.threads,
    )
    elapsed = time.perf_counter() - started
    thetas = sorted(t for t in grams if t is not None)
    key_params = {
        "lam": lam,
        "theta_grid": thetas,
        "C_grid": settings["C"],
        "normalize_options": settings["normalize"],
        "encoding": settings.get("encoding", {}),
        "seed": args.seed,
        "profile": args.profile,
    }
    record = _write_outputs(
        args, spec, key_params, result, timings={"svm_select_fit_predict": elapsed},
        grids={"C": settings["C"], "theta": thetas},
    )
    log.info("%s %s: chose %s; %s", spec.name, args.system, result.chosen, record["metrics"])


def _cmd_primal(args) -> None:
    import pandas as pd

    from kernbench.catalog import catalog
    from kernbench.kernels.anygram_encoding import Encoding, TokenEncoder
    from kernbench.papers.anygram.experiment import primal_features, run_primal

    set_threads(args.threads)
    spec = catalog()[args.dataset]
    settings = json.loads(args.settings)
    frame = pd.read_parquet(args.prepared)
    encoder = TokenEncoder.from_npz(args.embeddings, Encoding.from_config(settings.get("encoding", {})))
    started = time.perf_counter()
    features = primal_features(
        frame, encoder, system=args.system, lam=settings["lam"], lowercase_sm=settings.get("lowercase_sm", True)
    )
    mapped = time.perf_counter()
    result = run_primal(
        frame, features, C_grid=settings["C"], normalize_options=settings["normalize"], dataset=spec.name,
        seed=args.seed, n_jobs=args.threads,
    )
    trained = time.perf_counter()
    key_params = {
        "lam": settings["lam"],
        "lowercase_sm": settings.get("lowercase_sm", True),
        "training": "primal",
        "C_grid": settings["C"],
        "normalize_options": settings["normalize"],
        "encoding": settings.get("encoding", {}),
        "seed": args.seed,
        "profile": args.profile,
    }
    record = _write_outputs(
        args, spec, key_params, result, timings={"feature_map": mapped - started, "svm_select_fit_predict": trained - mapped},
        extra_params={"n_features": int(features["train"].shape[1])}, grids={"C": settings["C"]},
    )
    log.info("%s %s (primal): chose %s; %s", spec.name, args.system, result.chosen, record["metrics"])


def _write_outputs(
    args, spec, key_params: dict, result, *, timings: dict, grids: dict, extra_params: dict | None = None
) -> dict:
    """Predictions, confusion matrices and the run record of an SVM job (its grid choices too); returns the record."""
    from kernbench.fileio import write_text_atomic

    write_text_atomic(args.confusion, confusion_frame(result.confusion).to_csv(index=False))
    return write_run(
        args,
        paper=spec.paper,
        dataset=spec.name,
        system=args.system,
        key_params=key_params,
        params={**key_params, "chosen": result.chosen, "dev_accuracy_grid": result.dev_scores, **(extra_params or {})},
        rows=result.rows,
        predictions=result.predictions,
        timings=timings,
        artifacts=[args.confusion],
        grid_choices=grid_choices(result.chosen, grids),
    )


def confusion_frame(confusion: dict):
    """Long-format confusion matrices: one row per (split, true label, predicted label) with its count."""
    import pandas as pd

    rows = [
        {"split": split, "y_true": t, "y_pred": p, "count": int(count)}
        for split, cm in confusion.items()
        for t, counts in zip(cm["labels"], cm["matrix"])
        for p, count in zip(cm["labels"], counts)
    ]
    return pd.DataFrame(rows, columns=["split", "y_true", "y_pred", "count"])


def register(subparsers) -> None:
    """Add the ``anygram-gram``, ``-gram-tile``, ``-gram-assemble``, ``-svm`` and ``-primal`` subcommands."""
    p = add_plumbing(
        subparsers, "anygram-gram", "Gram matrices of kernel settings of one system (train, dev, test x train)"
    )
    add_input_arguments(p, "--dataset")
    p.add_argument("--kernel", required=True, nargs="+",
                   help="kernel settings <system>_lam<lam>[_theta<theta>], with the parameters the system has")
    add_input_arguments(p, "--prepared", "--embeddings", "--threads", "--cased-sm")
    p.add_argument("--encoding", default="{}",
                   help='JSON of the anygram encoding keys (split_contractions, identical_match, aspect_bit); {}: none')
    p.add_argument("--out-dir", required=True,
                   help="writes <split>.npz and <split>_diag.npz here; with several settings, holds {kernel}")
    p.set_defaults(func=_cmd_gram)

    p = add_plumbing(subparsers, "anygram-gram-tile", "one row tile of a kernel system's Gram matrix (split x train)")
    add_input_arguments(p, "--dataset")
    p.add_argument("--kernel", required=True, help="as for anygram-gram")
    add_input_arguments(p, "--prepared", "--embeddings")
    p.add_argument("--split", required=True, choices=SPLITS, help="split whose rows the tile holds")
    p.add_argument("--tile", type=int, required=True, help="tile index: rows tile*tile_rows up to the next tile")
    p.add_argument("--tile-rows", type=int, required=True, help="rows per tile (a multiple of the GEMM row block)")
    add_input_arguments(p, "--threads", "--cased-sm")
    p.add_argument("--encoding", default="{}",
                   help='JSON of the anygram encoding keys (split_contractions, identical_match, aspect_bit); {}: none')
    p.add_argument("--out", required=True, help="tile .npz to write")
    p.set_defaults(func=_cmd_gram_tile)

    p = add_plumbing(subparsers, "anygram-gram-assemble", "stack row tiles into the Gram matrices of anygram-gram")
    add_input_arguments(p, "--dataset")
    p.add_argument("--kernel", required=True, help="kernel directory name, as for anygram-gram")
    add_input_arguments(p, "--prepared", "--embeddings")
    p.add_argument("--tiles", nargs="+", required=True, help="<split>_<tile>.npz files of every split")
    add_input_arguments(p, "--threads", "--cased-sm")
    p.add_argument("--encoding", default="{}",
                   help='JSON of the anygram encoding keys (split_contractions, identical_match, aspect_bit); {}: none')
    p.add_argument("--out-dir", required=True, help="writes <split>.npz and <split>_diag.npz here")
    p.set_defaults(func=_cmd_gram_assemble)

    p = add_plumbing(subparsers, "anygram-svm", "SVC on precomputed any-gram kernels; theta/normalisation/C on dev")
    add_input_arguments(p, "--dataset")
    p.add_argument("--system", required=True, nargs="+", choices=systems.Choices(),
                   help="kernel systems, as in the paper's table; with several, --record, --predictions and "
                        "--confusion hold {system}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--grams", nargs="+", required=True, help="Gram directories of the systems, one per theta")
    p.add_argument("--settings", required=True, nargs="+",
                   help='JSON {"C": [...], "normalize": [...], "encoding": {...}}, one per --system in its order')
    add_run_arguments(p)
    p.add_argument("--confusion", required=True, help="CSV of the dev and test confusion matrices")
    p.set_defaults(func=_cmd_svm)

    p = add_plumbing(
        subparsers, "anygram-primal", "a kernel system as a linear SVM on its explicit feature map (no Gram matrix)"
    )
    add_input_arguments(p, "--dataset")
    p.add_argument("--system", required=True, choices=systems.Choices(lambda s: s.primal is not None),
                   help="kernel system with an explicit feature map, as in the paper's table")
    add_input_arguments(p, "--prepared", "--embeddings")
    p.add_argument("--settings", required=True,
                   help='JSON {"lam": ..., "C": [...], "normalize": [...], "lowercase_sm": true, "encoding": {...}}')
    add_run_arguments(p)
    p.add_argument("--confusion", required=True, help="CSV of the dev and test confusion matrices")
    p.set_defaults(func=_cmd_primal)
