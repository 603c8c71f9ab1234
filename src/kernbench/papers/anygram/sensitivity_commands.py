"""``kernbench anygram-sensitivity`` / ``lstm-sensitivity``: sensitivity rows of Table 3 of the any-gram paper."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from kernbench.papers.anygram.plan import LSTM_CHOICES
from kernbench.runs import add_input_arguments, add_plumbing

log = logging.getLogger("kernbench")

KERNEL_CHOICES = {
    "lam": "anygram.lam",
    "dev_split": "semeval14.dev_split_seed",
    "lowercase_sm": "anygram.lowercase_sm",
    "split_contractions": "anygram.split_contractions",
    "identical_match": "anygram.identical_match",
    "aspect_bit": "anygram.aspect_bit",
}


def _prepared(args) -> dict:
    if len(args.prepared) != len(args.datasets):
        raise ValueError(f"{len(args.prepared)} --prepared files for {len(args.datasets)} --datasets")
    return dict(zip(args.datasets, args.prepared))


def _kernel_predictions(runs_dir: Path, dataset: str, system: str) -> Path:
    return runs_dir / dataset / "kernels" / f"{system}.predictions.parquet"


def _cmd_anygram(args) -> None:
    import pandas as pd

    from kernbench.kernels.anygram_encoding import Encoding, TokenEncoder
    from kernbench.papers.anygram import sensitivity as sens
    from kernbench.papers.anygram.systems import get
    from kernbench.report.sensitivity import write_rows
    from kernbench.runs import set_threads

    set_threads(args.threads)
    settings = json.loads(args.settings)
    runs = Path(args.runs_dir)
    encoder = TokenEncoder.from_npz(args.embeddings, Encoding.from_config(settings.get("encoding", {})))
    common = {"C_grid": settings["C"], "normalize_options": settings["normalize"], "resamples": args.resamples,
              "seed": args.seed, "lowercase_sm": settings.get("lowercase_sm", True)}  # fmt: skip
    rows = []
    started = time.perf_counter()
    for dataset, path in _prepared(args).items():
        frame = pd.read_parquet(path)
        systems = settings.get("systems", [])
        preds = {s: _kernel_predictions(runs, dataset, s) for s in systems}
        if args.choice == "lam":
            rows += sens.lam_rows(
                frame, encoder, dataset=dataset, systems=systems, lams=settings["alternatives"],
                default_lam=settings["lam"], default_predictions=preds, **common,
            )  # fmt: skip
        elif args.choice in sens.ENCODING_LABELS:
            rows += sens.encoding_rows(
                frame, encoder, choice=args.choice, alternative=settings["alternatives"][0], dataset=dataset,
                systems=systems, lam=settings["lam"], thetas=settings["theta"], default_predictions=preds, **common,
            )  # fmt: skip
        elif args.choice == "lowercase_sm":
            rows += sens.lowercase_sm_rows(
                frame, encoder, dataset=dataset, systems=systems, lam=settings["lam"], default_predictions=preds,
                **common,
            )  # fmt: skip
        else:
            thetas = {
                s: sens.chosen_theta(runs / dataset / "kernels" / f"{s}.json") for s in systems if get(s).uses_theta
            }
            rows += sens.dev_split_rows(
                frame, encoder, dataset=dataset, systems=systems, split_seeds=settings["alternatives"],
                default_seed=settings["default_seed"], dev_fraction=settings["dev_fraction"], lam=settings["lam"],
                thetas=thetas, default_predictions=preds, **common,
            )  # fmt: skip
    frame = write_rows(rows, args.out)
    log.info("%s: %d rows in %.1f s\n%s", KERNEL_CHOICES[args.choice], len(frame), time.perf_counter() - started,
             frame[["dataset", "system", "alternative", "value_default", "value", "delta"]].to_string(index=False))


def _cmd_lstm(args) -> None:
    import pandas as pd

    from kernbench.papers.anygram.plan import lstm_alternative
    from kernbench.papers.anygram.sensitivity import lstm_choice_rows
    from kernbench.report.sensitivity import write_rows

    lstm_config = json.loads(args.settings)
    runs, alternatives = Path(args.runs_dir), Path(args.alternatives_dir)
    rows = []
    started = time.perf_counter()
    for dataset, path in _prepared(args).items():
        runs_of = [(system, seed) for system in lstm_config["systems"] for seed in lstm_config["seeds"]]
        rows += lstm_choice_rows(
            pd.read_parquet(path), choice=args.choice, dataset=dataset, systems=lstm_config["systems"],
            seeds=lstm_config["seeds"], default_value=lstm_config[args.choice],
            alternative_value=lstm_alternative(lstm_config, args.choice),
            default_predictions={
                (system, seed): runs / dataset / "lstm" / f"{system}_seed{seed}.predictions.parquet"
                for system, seed in runs_of
            },
            alternative_predictions={
                (system, seed): alternatives / dataset / f"{system}_seed{seed}.predictions.parquet"
                for system, seed in runs_of
            },
            resamples=args.resamples, seed=args.seed,
        )  # fmt: skip
    frame = write_rows(rows, args.out)
    log.info("lstm.%s: %d rows in %.1f s\n%s", args.choice, len(frame), time.perf_counter() - started,
             frame[["dataset", "system", "alternative", "value_default", "value", "delta"]].to_string(index=False))


def _common(p) -> None:
    p.add_argument("--datasets", nargs="+", required=True, help="dataset names, as in config.yaml's datasets")
    p.add_argument("--prepared", nargs="+", required=True, help="prepared parquet of each dataset, in order")
    p.add_argument("--runs-dir", required=True, help="runs/anygram of the main table (the default's predictions)")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples")
    p.add_argument("--seed", type=int, required=True, help="seed of the paired bootstrap")
    p.add_argument("--out", required=True, help="sensitivity CSV of this choice")


def register(subparsers) -> None:
    """Add the ``anygram-sensitivity`` and ``lstm-sensitivity`` subcommands."""
    p = add_plumbing(
        subparsers, "anygram-sensitivity", "Table 3 kernel rows under another lam, dev split, casing or token encoding"
    )
    p.add_argument("--choice", required=True, choices=sorted(KERNEL_CHOICES),
                   help="open choice whose alternatives are measured")
    _common(p)
    add_input_arguments(p, "--embeddings", "--threads")
    p.add_argument(
        "--settings", required=True,
        help='JSON {"lam", "lowercase_sm", "C", "normalize", "theta", "encoding", "systems", "alternatives"} '
             '(+ "default_seed", "dev_fraction" for dev_split)',
    )  # fmt: skip
    p.set_defaults(func=_cmd_anygram)

    p = add_plumbing(subparsers, "lstm-sensitivity", "Table 3 LSTM rows: the main runs against the runs with one choice's alternative")
    p.add_argument("--choice", required=True, choices=sorted(LSTM_CHOICES), help="open LSTM choice whose alternative is measured")
    _common(p)
    p.add_argument("--alternatives-dir", required=True,
                   help="predictions of the runs with the other embedding setting, as <dataset>/<system>_seed<seed>")
    p.add_argument("--settings", required=True, help="JSON: the lstm config block")
    p.set_defaults(func=_cmd_lstm)
