"""``kernbench ordinal-run | ordinal-claims | ordinal-sensitivity``: the feature-selection experiment
of Baccianella et al."""

from __future__ import annotations

import json
import logging
import time

from kernbench.runs import add_input_arguments, add_plumbing, add_run_arguments

log = logging.getLogger("kernbench")


def _cmd_run(args) -> None:
    import argparse

    import pandas as pd

    from kernbench.catalog import catalog
    from kernbench.errors import DataError
    from kernbench.papers.ordinal import SLUGS, SYSTEM_OF_SLUG, SYSTEMS
    from kernbench.runs import paths_per_run

    systems = [SYSTEM_OF_SLUG.get(name, name) for name in args.system]
    for name, system in zip(args.system, systems):
        if system not in SYSTEMS:
            raise DataError(f"--system {name!r}: expected one of {list(SYSTEMS)} or their slugs {list(SYSTEM_OF_SLUG)}")
    spec = catalog().get(args.dataset)
    if spec is None or spec.task != "ordinal":
        raise DataError(f"--dataset {args.dataset!r} is not an ordinal (1-5 star) dataset")
    paths = paths_per_run(args, ("record", "predictions"), "slug", [SLUGS[s] for s in systems], command="ordinal-run")
    settings = json.loads(args.params)
    frame = pd.read_parquet(args.prepared)
    missing = {"id", "split", "label", "text"} - set(frame.columns)
    if missing:
        raise DataError(f"{args.prepared}: lacks column(s) {sorted(missing)}")
    for system in systems:
        _run_one(argparse.Namespace(**{**vars(args), **paths[SLUGS[system]]}), frame, spec, system, settings)


def _run_one(args, frame, spec, system: str, settings: dict) -> None:
    """Run ``system`` on the prepared ``frame`` of dataset ``spec`` and write its record and predictions."""
    from kernbench.errors import DataError
    from kernbench.papers.ordinal import PAPER
    from kernbench.papers.ordinal.runner import run_system
    from kernbench.runs import grid_choice, write_run

    started = time.perf_counter()
    try:
        result = run_system(frame, dataset=spec.name, system=system, settings=settings, seed=args.seed)
    except ValueError as exc:
        raise DataError(f"{args.prepared}: {exc}") from exc
    timings = {**result.timings, "total": time.perf_counter() - started}
    key_params = {**settings, "seed": args.seed, "profile": args.profile}
    write_run(
        args,
        paper=PAPER.name,
        dataset=spec.name,
        system=system,
        key_params=key_params,
        params={**key_params, "chosen": result.chosen},
        rows=result.rows,
        predictions=result.predictions,
        timings=timings,
        curves=result.curves,
        grid_choices={"a": grid_choice(result.chosen["a"], settings["a_grid"])} if "a" in result.chosen else None,
    )
    values = [r["value"] for r in result.rows]
    log.info(
        "%s %s: %d level(s), MAE^M %.4f .. %.4f, chosen %s, %.1f s",
        spec.name,
        system,
        len(values),
        min(values),
        max(values),
        result.chosen,
        timings["total"],
    )


def _cmd_claims(args) -> None:
    from kernbench.errors import DataError
    from kernbench.fileio import write_text_atomic
    from kernbench.papers.ordinal.claims import evaluate_claims, items_from_records, rules_text

    settings = json.loads(args.params)
    rules = {
        key: settings[key]
        for key in ("stability_tolerance", "alpha", "yes_share", "partly_share", "stable_share")
    }
    try:
        items = items_from_records(args.records)
        claims = evaluate_claims(
            items,
            resamples=args.resamples,
            seed=args.seed,
            superior_range=tuple(settings["superior_range"]),
            stable_range=tuple(settings["stable_range"]),
            ffs_range=tuple(settings["ffs_range"]),
            **rules,
        )
    except (KeyError, ValueError) as exc:
        raise DataError(f"ordinal-claims: {exc}") from exc
    write_text_atomic(args.csv, claims.to_csv(index=False, lineterminator="\n"))
    write_text_atomic(args.md, claims.to_markdown(index=False) + "\n\nRules: " + rules_text(**rules) + "\n")
    log.info("claims: %s", claims[["dataset", "claim", "answer"]].to_dict("records"))


def _cmd_sensitivity(args) -> None:
    import pandas as pd

    from kernbench.errors import DataError
    from kernbench.papers.ordinal.sensitivity import SYSTEM_OF_CHOICE, nc_epsilon_rows, prp_weights_rows
    from kernbench.records import load_record
    from kernbench.report.sensitivity import write_rows

    if len(args.records) != len(args.prepared):
        raise DataError(f"--records ({len(args.records)}) and --prepared ({len(args.prepared)}) differ in length")
    rows_of = {"ordinal.prp_weights": prp_weights_rows, "ordinal.nc_epsilon": nc_epsilon_rows}
    system = SYSTEM_OF_CHOICE[args.choice]
    levels = json.loads(args.levels)
    rows = []
    started = time.perf_counter()
    for record_path, prepared in zip(args.records, args.prepared):
        record = load_record(record_path)
        if record["system"] != system:
            raise DataError(
                f"{record_path}: --choice {args.choice} needs a {system} run record, not {record['system']!r}"
            )
        settings = {k: v for k, v in record["params"].items() if k not in ("seed", "profile", "chosen")}
        try:
            rows += rows_of[args.choice](
                pd.read_parquet(prepared),
                dataset=record["dataset"],
                default_predictions=pd.read_parquet(record["predictions"]),
                settings=settings,
                levels=levels,
                resamples=args.resamples,
                seed=record["params"]["seed"],
            )
        except (KeyError, ValueError) as exc:
            raise DataError(f"{record_path}: {exc}") from exc
    write_rows(rows, args.out)
    log.info("%s: %d rows, %.1f s", args.out, len(rows), time.perf_counter() - started)


def register(subparsers) -> None:
    """Add the ``ordinal-*`` subcommands."""
    p = add_plumbing(
        subparsers, "ordinal-run", "systems of the ordinal feature-selection experiment on one dataset, a run each"
    )
    add_input_arguments(p, "--dataset")
    p.add_argument("--system", required=True, nargs="+",
                   help="system names (e.g. 'RR(Var*IDF)') or their slugs (rr_var_idf); with several, the output "
                        "paths hold {slug}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--params", required=True, help="JSON: the ordinal.run config block")
    add_run_arguments(p)
    p.set_defaults(func=_cmd_run)

    p = add_plumbing(subparsers, "ordinal-claims", "answer the paper's four claims from the run records")
    add_input_arguments(p, "--records")
    p.add_argument("--params", required=True, help="JSON: the ordinal.claims config block")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples of each paired comparison")
    p.add_argument("--seed", type=int, required=True, help="seed of the paired bootstrap")
    p.add_argument("--csv", required=True, help="table to write (CSV)")
    p.add_argument("--md", required=True, help="table to write (markdown)")
    p.set_defaults(func=_cmd_claims)

    p = add_plumbing(
        subparsers, "ordinal-sensitivity",
        "sensitivity rows: PRP under the other weights (ordinal.prp_weights) or RR(NC*IDF) under the other "
        "smoothing of NC (ordinal.nc_epsilon), at a few levels",
    )
    p.add_argument("--choice", choices=["ordinal.prp_weights", "ordinal.nc_epsilon"], default="ordinal.prp_weights",
                   help="the open choice measured")
    p.add_argument("--records", nargs="+", required=True,
                   help="run records of the system the choice concerns (PRP; RR(NC*IDF)), default settings")
    p.add_argument("--prepared", nargs="+", required=True, help="prepared datasets, in the order of --records")
    p.add_argument("--levels", required=True, help="JSON list of reduction levels compared")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples")
    p.add_argument("--out", required=True, help="CSV of sensitivity rows to write")
    p.set_defaults(func=_cmd_sensitivity)
