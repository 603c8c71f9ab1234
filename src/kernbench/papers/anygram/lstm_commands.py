"""``kernbench lstm``: train the UniLSTM / BiLSTM of one dataset, one model per system and seed, and write their run records."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

from kernbench.runs import add_input_arguments, add_plumbing, add_run_arguments

log = logging.getLogger("kernbench")


def save_model_atomic(model, target: str | Path) -> None:
    """Save a Keras model to ``target`` (``.keras``), replacing it only once the file is complete."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        tmp = tmp_dir / "model.keras"
        model.save(tmp)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


def _cmd_lstm(args) -> None:
    import argparse

    import pandas as pd

    from kernbench.catalog import catalog
    from kernbench.data.embeddings import load_embeddings
    from kernbench.errors import DataError
    from kernbench.papers.anygram.lstm import HYPERPARAMETERS, TRAINING_SETTINGS, configure_tensorflow
    from kernbench.runs import paths_per_run

    if len(args.settings) != len(args.system):
        raise DataError(f"--settings: one JSON per --system ({len(args.system)}), got {len(args.settings)}")
    settings = dict(zip(args.system, map(json.loads, args.settings)))
    for system, entry in settings.items():
        missing = [k for k in (*HYPERPARAMETERS, *TRAINING_SETTINGS) if k not in entry]
        if missing:
            raise DataError(f"--settings of {system} lacks {', '.join(missing)}")
    names = ("record", "predictions", "model")
    runs = {}  # (system, seed) -> output paths, every template checked before any model trains
    for system, templates in paths_per_run(args, names, "system", args.system, command="lstm").items():
        per_system = argparse.Namespace(**{**vars(args), **templates})
        for seed, outputs in paths_per_run(per_system, names, "seed", args.seed, command="lstm").items():
            runs[system, seed] = outputs
    configure_tensorflow(args.threads)
    frame = pd.read_parquet(args.prepared)
    emb = load_embeddings(args.embeddings)
    for (system, seed), outputs in runs.items():
        run = argparse.Namespace(**{**vars(args), "system": system, "seed": seed, **outputs})
        _train_one(run, catalog()[args.dataset], settings[system], frame, emb)


def _train_one(args, spec, settings: dict, frame, emb) -> None:
    """Train the model of one seed (``args.seed``) and write its record, predictions and model.

    With an MLflow server as ``args.tracking_uri``, the run is open there while the model trains
    (:class:`kernbench.report.tracking_live.LiveRun`).
    """
    from kernbench.records import make_run_key
    from kernbench.report.tracking_live import live_run

    vectors = emb.vectors
    key_params = {**settings, "seed": args.seed, "profile": args.profile, "embedding_dim": int(vectors.shape[1])}
    live = live_run(
        args.tracking_uri, paper=spec.paper, artifact_root=args.mlflow_artifacts,
        run_key=make_run_key(args.table, spec.name, args.system, key_params),
        run_name=f"{spec.name}/{args.system} seed {args.seed}",
        tags={"dataset": spec.name, "system": args.system, "seed": args.seed},
    )  # fmt: skip
    with live or contextlib.nullcontext():
        _train_and_write(args, spec, settings, frame, emb, key_params, None if live is None else live.log_epoch)


def _train_and_write(args, spec, settings: dict, frame, emb, key_params: dict, on_epoch) -> None:
    from kernbench.papers.anygram.lstm import train_lstm
    from kernbench.runs import write_run

    started, cpu_started = time.perf_counter(), time.process_time()
    vectors = emb.vectors
    result = train_lstm(
        frame, emb.words, vectors, cased=emb.cased, system=args.system, settings=settings, seed=args.seed,
        dataset=spec.name, on_epoch=on_epoch,
    )

    save_model_atomic(result.model, args.model)
    record = write_run(
        args,
        paper=spec.paper,
        table=args.table,
        dataset=spec.name,
        system=args.system,
        key_params=key_params,
        params={**key_params, "best_epoch": result.best_epoch, "epochs_trained": len(result.curves["loss"])},
        rows=result.rows,
        curves=result.curves,
        timings={
            **result.timings,
            "total": time.perf_counter() - started,
            "cpu": time.process_time() - cpu_started,  # all threads, this seed's model without the process start-up
        },
        predictions=result.predictions,
        artifacts=[args.model],
    )
    log.info(
        "%s %s seed %d: best epoch %d of %d, %s, %.1f s training",
        spec.name,
        args.system,
        args.seed,
        result.best_epoch,
        len(result.curves["loss"]),
        record["metrics"],
        result.timings["train"],
    )


def register(subparsers) -> None:
    """Add the ``lstm`` subcommand."""
    from kernbench.catalog import catalog

    p = add_plumbing(
        subparsers, "lstm", "train UniLSTM / BiLSTM baselines, one per system and seed, and write their run records"
    )
    p.add_argument("--dataset", required=True, choices=catalog().tokenised, help="dataset name, as in config.yaml's datasets")
    p.add_argument("--system", required=True, nargs="+", choices=["UniLSTM", "BiLSTM"],
                   help="system names, as in the paper's table; with several, the output paths hold {system}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--embeddings", required=True, help="npz with `words`, `vectors` and `cased`")
    p.add_argument("--settings", required=True, nargs="+",
                   help="JSON, one per --system in its order: Table 4 entry with max_epochs, patience, "
                        "trainable_embeddings and bucket_batches")
    add_run_arguments(p, several_seeds=True)
    p.add_argument("--model", required=True,
                   help="where to save the trained model (.keras); holds {seed} and {system} as --record does")
    p.add_argument("--tracking-uri", default="",
                   help="the workflow's MLflow store (mlflow.tracking_uri); with a server (http(s)://…), each seed's "
                        "epochs and system metrics go to its run while it trains; any other store is left alone")
    p.add_argument("--mlflow-artifacts", default=None,
                   help="artifact directory of the paper's MLflow experiment if this job creates it on the server "
                        "(as track gives it: <results_dir>/mlartifacts)")
    p.add_argument("--table", default="anygram", choices=["anygram", "sensitivity"],
                   help="the table the run belongs to: Table 3, or only a row of the sensitivity table")
    p.set_defaults(func=_cmd_lstm)
