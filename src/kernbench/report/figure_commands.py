"""``kernbench figure``: report figures drawn from finished tables and benchmarks."""

from __future__ import annotations

from kernbench.runs import add_plumbing
from kernbench.errors import DataError

KINDS = ("anygram-accuracy", "throughput", "fisher-average-precision", "ordinal")


def _cmd_figure(args) -> None:
    from kernbench.report import figures

    if args.kind == "ordinal":
        if not args.dataset:
            raise DataError("figure ordinal: --dataset is needed (reviews_clothing, reviews_hotel, ...)")
        figures.ordinal_curves(args.input, args.dataset, args.out)
        return
    draw = {
        "anygram-accuracy": figures.anygram_accuracy,
        "throughput": figures.throughput,
        "fisher-average-precision": figures.fisher_average_precision,
    }[args.kind]
    draw(args.input, args.out)


def register(subparsers) -> None:
    """Add the ``figure`` subcommand."""
    p = add_plumbing(subparsers, "figure", "draw a report figure from a table or benchmark CSV")
    p.add_argument("kind", choices=KINDS, help="which figure")
    p.add_argument(
        "--input", required=True,
        help="tables/anygram.csv, benchmarks/anygram.csv, tables/fisher.csv or tables/ordinal.csv",
    )
    p.add_argument("--dataset", help="the review corpus drawn by the ordinal figure")
    p.add_argument("--out", required=True, help="PNG to write")
    p.set_defaults(func=_cmd_figure)
