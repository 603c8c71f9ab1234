"""``kernbench fisher-features | fisher-svm``: Table 1 of the string/Fisher/FSA kernel paper."""

from __future__ import annotations

import argparse
import json
import logging
import time

from kernbench.papers.fisher.plan import SENSITIVITY_CHOICES
from kernbench.runs import (
    add_input_arguments, add_plumbing, add_run_arguments, grid_choice, paths_per_run, set_threads, write_run,
)

log = logging.getLogger("kernbench.fisher")

PAPER = "fisher"


def _cmd_features(args) -> None:
    import pandas as pd

    from kernbench.fileio import write_json_atomic
    from kernbench.papers.fisher.experiment import build_features, save_features

    set_threads(args.threads, blas=False)
    outputs = paths_per_run(args, ("out", "info"), "system", args.system, command="fisher-features")
    params = json.loads(args.params)
    frame = pd.read_parquet(args.prepared, columns=["id", "split", "label", "text"])
    for system in args.system:
        started = time.perf_counter()
        features, train_ids, test_ids = build_features(frame, system, params, seed=args.seed)
        elapsed = time.perf_counter() - started
        save_features(outputs[system]["out"], features, train_ids, test_ids)
        info = {
            **features.info,
            "system": system,
            "seconds": elapsed,
            "train_shape": list(features.train.shape),
            "test_shape": list(features.test.shape),
            "train_nnz": int(features.train.nnz),
        }
        write_json_atomic(outputs[system]["info"], info)
        log.info("%s features: %s", system, info)


def _cmd_svm(args) -> None:
    import pandas as pd

    from kernbench.catalog import catalog

    set_threads(args.threads, blas=False)
    names = ("features", "features_info", "record", "predictions")
    spec = catalog()[args.dataset]
    frame = pd.read_parquet(args.prepared, columns=["id", "split", "label"])
    for system, paths in paths_per_run(args, names, "system", args.system, command="fisher-svm").items():
        _fit_system(argparse.Namespace(**{**vars(args), **paths}), spec, frame, system)


def _fit_system(args, spec, frame, system: str) -> None:
    """One system's SVMs, one per category of ``args.category``, on its feature cache; a run record each."""
    from kernbench.papers.fisher.experiment import evaluate_categories

    outputs = paths_per_run(args, ("record", "predictions"), "category", args.category, command="fisher-svm")
    params = json.loads(args.params)
    started = time.perf_counter()
    results = evaluate_categories(frame, args.features, categories=args.category, params=params, seed=args.seed)
    elapsed = time.perf_counter() - started
    with open(args.features_info, encoding="utf-8") as handle:
        features_info = json.load(handle)
    # The c of Eq. 2 the features used (None where unused), with fisher.c = cv its cross-validation, and the
    # range of the weighting factor over the training features.
    c_params = {k: features_info[k] for k in ("c", "c_cv", "weights") if k in features_info}
    features = {k: v for k, v in features_info.items() if k not in ("seconds", "c", "c_cv", "weights")}
    # One job fits every category on the same Gram matrices; each record carries the job's time.
    timings = {"features": features_info["seconds"], "fit_predict_all_categories": elapsed}
    grid_choices = None
    if "c_cv" in features_info:
        timings["c_cv"] = features_info["c_cv"]["seconds"]
        grid_choices = {"c": grid_choice(features_info["c"], features_info["c_cv"]["grid"])}
    for category, (rows, predictions) in results.items():
        # A table row's dataset (and its predictions' category) is the category, qualified on a catalog dataset.
        rows = [{**row, "dataset": spec.cell(category)} for row in rows]
        predictions = predictions.assign(category=spec.cell(category))
        paths = argparse.Namespace(**outputs[category], threads=args.threads)
        key_params = {**params, "category": category, "seed": args.seed, "profile": args.profile}
        record = write_run(
            paths,
            paper=PAPER,
            dataset=spec.name,
            system=system,
            key_params=key_params,
            params={**key_params, **c_params, "features": features},
            rows=rows,
            predictions=predictions,
            timings=timings,
            grid_choices=grid_choices,
        )
        log.info("%s %s: %s", system, category, record["metrics"])


def _cmd_sensitivity(args) -> None:
    import pandas as pd

    from kernbench.papers.fisher.sensitivity import sensitivity_rows
    from kernbench.records import load_record
    from kernbench.report.sensitivity import write_rows

    set_threads(args.threads, blas=False)
    params = json.loads(args.params)
    frame = None
    if args.choice != "ap_reading":
        frame = pd.read_parquet(args.prepared, columns=["id", "split", "label", "text"])
    feature_paths = {}
    for path in filter(None, args.features or []):
        system = path.rsplit("/", 1)[-1].removesuffix(".npz")
        feature_paths[system] = path
    records = [load_record(p) for p in args.records]
    rows, seconds = sensitivity_rows(
        args.choice, frame, records, params, resamples=args.resamples, seed=args.seed, feature_paths=feature_paths
    )
    write_rows(rows, args.out)
    log.info("fisher.%s: %d sensitivity rows in %.1f s", args.choice, len(rows), seconds)


def register(subparsers) -> None:
    """Add the ``fisher-*`` subcommands."""
    p = add_plumbing(subparsers, "fisher-features", "build and cache the feature matrices of one or more systems")
    p.add_argument("--system", required=True, nargs="+",
                   help="systems, as in the paper's table, a feature cache each; with several, --out and --info hold {system}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--params", required=True, help="JSON: the fisher config block")
    p.add_argument("--seed", type=int, default=None, help="seed of the cross-validation of c (fisher.c = cv)")
    add_input_arguments(p, "--threads")
    p.add_argument("--out", required=True, help=".npz feature cache")
    p.add_argument("--info", required=True, help="JSON sizes and build time")
    p.set_defaults(func=_cmd_features)

    p = add_plumbing(subparsers, "fisher-svm",
                     "linear SVMs of each system, one per category, on Gram matrices computed once; a run record each")
    p.add_argument("--system", required=True, nargs="+",
                   help="systems, as in the paper's table; with several, --features, --features-info, --record and "
                        "--predictions hold {system}")
    p.add_argument("--dataset", default="reuters", help="ranking dataset: reuters or a catalog dataset of task ranking")
    p.add_argument("--category", required=True, nargs="+",
                   help="categories of the dataset; with several, --record and --predictions hold {category}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--features", required=True, help="feature cache (.npz, written by kernbench fisher-features)")
    p.add_argument("--features-info", required=True, help="JSON sizes of the feature cache (kernbench fisher-features)")
    p.add_argument("--params", required=True, help='JSON {"C", "solver", "loss", "intercept_scaling", "max_iter"}')
    add_run_arguments(p)
    p.set_defaults(func=_cmd_svm)

    p = add_plumbing(subparsers, "fisher-sensitivity", "sensitivity rows of one open choice of Table 1")
    p.add_argument("--choice", required=True, choices=list(SENSITIVITY_CHOICES),
                   help="open choice whose alternatives are measured")
    p.add_argument("--records", nargs="*", default=[], help="main fisher-svm run records of the cells covered")
    p.add_argument("--features", nargs="*", default=[], help="main feature caches <system>.npz (re-used by loss, solver)")
    p.add_argument("--prepared", help="prepared reuters table (every choice but ap_reading)")
    p.add_argument("--params", required=True, help="JSON: the fisher config block")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples")
    p.add_argument("--seed", type=int, required=True, help="seed of the paired bootstrap and the solvers")
    p.add_argument("--out", required=True, help="CSV of sensitivity rows")
    add_input_arguments(p, "--threads")
    p.set_defaults(func=_cmd_sensitivity)
